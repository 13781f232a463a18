"""The report's content: one warehouse query (and figure) per section, formatted for the page.

The numbers come from `Warehouse`'s metric methods and the figures from `channelkit.plots`;
this module only chooses the period and filters, and turns the frames into page parts.
Each frame also goes, unformatted, to the CSV files of `--csv`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pandas as pd
from markupsafe import Markup

from channelkit import plots
from channelkit._channels import ChannelName, match_channel
from channelkit._constants import (
    FAIR_MIN_BASE,
    REPORT_BODY_EXCERPT_CHARS,
    REPORT_DAILY_TREND_MAX_DAYS,
    REPORT_GROUP_ROWS_LIMIT,
    REPORT_TREND_TICKS,
    REPORT_UPCOMING_LIMIT,
    SMALL_SAMPLE_POSTS,
)
from channelkit.analysis.fair import FAIR_NOTE
from channelkit.analysis.freshness import Freshness
from channelkit.display import numbers
from channelkit.display.columns import kind_of, kpi_kind
from channelkit.display.kinds import NUMBER, RATE, Kind
from channelkit.display.notes import PROVISIONAL, SMALL_BASE, is_provisional, provisional_line
from channelkit.display.outlook import heading_below
from channelkit.reports.charts import chart, heatmaps_one_by_one
from channelkit.reports.checks import last_data_day
from channelkit.reports.page import Cell, KpiTile, ReportPage, Section, Sentence, Table, TableColumn
from channelkit.reports.parameters import ReportPeriod, local_date
from channelkit.reports.render import markdown_html
from channelkit.reports.summary import INCOMPLETE, PostRate, summary_sentences

if TYPE_CHECKING:
    from channelkit.warehouse import Warehouse

StepLogger = Callable[[str], None]


@dataclass(frozen=True)
class _Query:
    """The period and filters every section shares."""

    period: ReportPeriod
    channels: tuple[str, ...]

    @property
    def filters(self) -> dict[str, Any]:
        return report_filters(self.period, self.channels)


def report_filters(period: ReportPeriod, channels: Sequence[str]) -> dict[str, Any]:
    """The `Warehouse` arguments of every section: the period's days and the channels."""
    return {**period.query(), "channel": list(channels) or None}


# The CSV files of `--csv`, one per frame the report queries.
CSV_NAMES = (
    "kpis",
    "engagement_over_time",
    "top_posts_by_readers",
    "top_posts_by_read_rate",
    "low_reach",
    "channel_comparison",
    "tag_performance",
    "priority_impact",
    "publishing_heatmap",
    "upcoming_scheduled",
)

# The tiles, in the order a comms team reads them: (metric, label).
TILES = (
    ("read_rate", "Read rate"),
    ("readers", "Readers"),
    ("posts_published", "Posts"),
    ("opens", "Opens"),
    ("engagement_rate", "Engagement rate"),
    ("net_subscribers", "Net subscribers"),
)


def build_page(
    wh: Warehouse,
    period: ReportPeriod,
    *,
    previous: ReportPeriod,
    compare: str,
    channels: Sequence[str],
    freshness: Freshness,
    complete: bool,
    plotlyjs: Markup,
    generator: str,
    step: StepLogger,
) -> tuple[ReportPage, dict[str, pd.DataFrame]]:
    """Query every section; return the page and the raw frames by CSV name."""
    query = _Query(period, tuple(channels))
    names = channel_display_names(wh, channels)  # "All Hands" in the title, whatever was given
    frames: dict[str, pd.DataFrame] = {}
    tz = period.tz

    def fetch(name: str, method: Callable[..., pd.DataFrame], **kwargs: Any) -> pd.DataFrame:
        step(f"querying {name.replace('_', ' ')}")
        frame = method(**query.filters, **kwargs)
        frames[name] = frame
        return frame

    kpis = fetch("kpis", wh.kpis, compare=compare)
    freq = "day" if period.days <= REPORT_DAILY_TREND_MAX_DAYS else "week"
    trend = fetch("engagement_over_time", wh.engagement_over_time, freq=freq)
    top_readers = fetch("top_posts_by_readers", wh.top_posts, by="readers")
    top_rate = fetch("top_posts_by_read_rate", wh.top_posts, by="read_rate")
    low = fetch("low_reach", wh.low_reach)
    by_channel = fetch("channel_comparison", wh.channel_comparison)
    by_tag = fetch("tag_performance", wh.tag_performance)
    by_priority = fetch("priority_impact", wh.priority_impact)
    heatmap = fetch("publishing_heatmap", wh.publishing_heatmap)
    # Scheduled posts as of the last sync, not the wall clock: same data, same report.
    as_of = freshness.last_sync_at or _local_midnight(period.end, period.tz)
    step("querying upcoming scheduled posts")
    upcoming = wh.upcoming_scheduled(as_of=as_of, tz=period.tz, channel=query.filters["channel"])
    frames["upcoming_scheduled"] = upcoming

    step("querying the outlook of young posts")
    young = wh.outlook(channel=list(channels) or None, tz=period.tz)
    step("drawing figures")
    bodies = _bodies(wh, [*top_readers["post_id"], *top_rate["post_id"]])
    sections = (
        _trend_section(trend, freq, tz, young),
        _top_section("top-posts", "Most read posts", top_readers, bodies, tz),
        _top_section(
            "top-posts-rate",
            "Posts with the highest read rate",
            top_rate,
            bodies,
            tz,
            same_as=top_readers,
        ),
        _low_reach_section(low, tz),
        _channel_section(by_channel, tz),
        _group_section("tags", "Tags", "Tag", "tag", by_tag, plots.tag_performance, tz),
        _group_section(
            "priority", "Priority", "Priority", "priority", by_priority, plots.priority_impact, tz
        ),
        _heatmap_section(heatmap, tz),
        _upcoming_section(upcoming, tz, as_of),
    )
    complete = complete and bool(kpis.attrs.get("complete", True))
    rows = {
        str(row["metric"]): {str(k): v for k, v in row.items()} for row in kpis.to_dict("records")
    }
    best, weakest = _best_and_weakest(top_rate, low)
    summary = summary_sentences(
        rows,
        period_name=period.phrase,
        previous_name=previous.phrase,
        complete=complete,
        best=best,
        weakest=weakest,
        comparison=kpis.attrs.get("comparison"),
        missing=kpis.attrs.get("missing"),
    )
    summary += _outlook_sentences(in_period(young, period))
    caveats = _caveats(period, by_tag, by_priority) + _gap_caveat(freshness, period.tz)
    caveats += [str(w) for w in kpis.attrs.get("warnings", ())]
    why = provisional_line(rows.values())
    caveats += [] if why is None else [why]
    page = ReportPage(
        title=report_title(period, names),
        period=period,
        previous_period=previous,
        parameters=_parameters(wh, period, previous, names),
        freshness=_freshness(freshness, period.tz),
        kpis=_tiles(rows, complete),
        sections=sections,
        caveats=tuple(caveats),
        plotlyjs=plotlyjs,
        generator=generator,
        summary=summary,
    )
    return page, frames


def young_posts(wh: Warehouse, period: ReportPeriod, channels: Sequence[str]) -> pd.DataFrame:
    """`wh.outlook` of the posts published in the period (none for a period without young
    posts): where each is heading, provisional."""
    return in_period(wh.outlook(channel=list(channels) or None, tz=period.tz), period)


def in_period(young: pd.DataFrame, period: ReportPeriod) -> pd.DataFrame:
    """The posts of `young` (`wh.outlook`) published in the period."""
    start, end = (_local_midnight(day, period.tz) for day in (period.start, period.end))
    return young[(young["published_at"] >= start) & (young["published_at"] < end)]


def _outlook_sentences(young: pd.DataFrame) -> tuple[Sentence, ...]:
    """The period's young posts heading below their channel's usual range, said after the
    summary."""
    text = heading_below(young)
    return () if text is None else (Sentence(f"{text}.", (PROVISIONAL,)),)


def report_title(period: ReportPeriod, channels: Sequence[str]) -> str:
    """ "Engagement report · October 2026 · All channels" (or the channels asked for)."""
    names = ", ".join(channels) if channels else "All channels"
    return f"Engagement report · {period.name} · {names}"


def channel_display_names(wh: Warehouse, channels: Sequence[str]) -> tuple[str, ...]:
    """The channels' names as people know them ("All Hands"), whether an id, a slug or a
    name was given: a report's title, headings and email subject."""
    if not channels:
        return ()
    known = [
        ChannelName(str(row.id), str(row.slug), str(row.name)) for row in wh.channels().itertuples()
    ]
    return tuple(match_channel(ref, known).name for ref in channels)


def _best_and_weakest(
    top_rate: pd.DataFrame, low: pd.DataFrame
) -> tuple[PostRate | None, PostRate | None]:
    """The first post of the fair ranking by read rate, and the one furthest below its
    channel's usual read rate (`low_reach`: below half the channel's median; None when no
    post is) among those with an audience large enough to rank (FAIR_MIN_BASE)."""
    best = None
    if not top_rate.empty and not numbers.missing(top_rate["read_rate"].iloc[0]):
        first = top_rate.iloc[0]
        best = PostRate(str(first["title"]), float(first["read_rate"]), None, *_base(first))
    weakest = None
    judged = low[low["audience"] >= FAIR_MIN_BASE] if not low.empty else low
    if not judged.empty:
        worst = judged.iloc[0]
        weakest = PostRate(
            str(worst["title"]),
            float(worst["read_rate"]),
            float(worst["channel_median"]),
            *_base(worst),
        )
    return best, weakest


def _base(row: pd.Series) -> tuple[int, int]:
    """A post's readers and audience, the numbers behind its read rate."""
    return int(row["readers"]), int(row["audience"])


@dataclass(frozen=True)
class _Kinds:
    """A section's cells as its frame's columns' kinds say (records keep no attrs):

    show = _Kinds(top); show(row, "readers")   # "1,204"
    """

    frame: pd.DataFrame

    def of(self, column: str) -> Kind:
        return kind_of(self.frame, column) or NUMBER

    def __call__(self, row: Mapping[Hashable, Any] | pd.Series[Any], column: str) -> str:
        return self.of(column).text(row[column])

    def interval(
        self, row: Mapping[Hashable, Any] | pd.Series[Any], column: str = "read_rate"
    ) -> Cell:
        return _interval_cell(row, column, self.of(column))


def _rate_interval(
    row: Mapping[Hashable, Any] | pd.Series[Any],
    rate: str = "read_rate",
    kind: Kind = RATE,
) -> str:
    """ "58.1% (50.7%–65.3%)": a rate (as its `kind`) and its 95% interval."""
    value, interval = _interval_parts(row, rate, kind.text)
    return f"{value} ({interval})" if interval else value


def _interval_cell(row: Mapping[Hashable, Any] | pd.Series[Any], rate: str, kind: Kind) -> Cell:
    """`_rate_interval` as a table cell: the interval in its own span, which a narrow
    screen puts under the rate (the column as wide as "(50.7%–65.3%)", not as both)."""
    value, interval = _interval_parts(row, rate, kind.text)
    if not interval:
        return value
    return Markup('{} <span class="interval">({})</span>').format(value, interval)


def _interval_parts(
    row: Mapping[Hashable, Any] | pd.Series[Any], rate: str, show: Callable[[Any], str]
) -> tuple[str, str]:
    """("58.1%", "50.7%–65.3%"), or (the rate, "") without an interval."""
    value = show(row[rate])
    low, high = row.get(f"{rate}_low"), row.get(f"{rate}_high")
    if numbers.missing(row[rate]) or numbers.missing(low) or numbers.missing(high):
        return value, ""
    first, last = show(low), show(high)
    return value, f"{first} to {last}" if numbers.signed_ends(
        first, last
    ) else f"{first}\u2013{last}"


def _incomplete_caveat(period: ReportPeriod, fresh: Freshness) -> str:
    last = last_data_day(fresh)
    return (
        f"{period.name} is not complete: the warehouse has data up to {last}. Changes "
        "against the previous period are left out where they would mislead."
    )


# readers and read rate early: on a phone they stay inside the screen as titles wrap
_TOP_CHART_COLUMNS = ("rank", "title", "readers", "read_rate", "opens", "channel")


def _local_midnight(day: Any, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=tz)


def _bodies(wh: Warehouse, post_ids: list[str]) -> dict[str, str]:
    if not post_ids:
        return {}
    frame = wh.sql(
        "SELECT id, body FROM posts WHERE id = ANY(?::VARCHAR[])", [sorted(set(post_ids))]
    )
    return {str(row.id): str(row.body or "") for row in frame.itertuples()}


def _tiles(rows: Mapping[str, Mapping[Any, Any]], complete: bool) -> tuple[KpiTile, ...]:
    return tuple(
        _tile(metric, label, rows[metric], complete) for metric, label in TILES if metric in rows
    )


def _tile(metric: str, label: str, row: Mapping[Any, Any], complete: bool) -> KpiTile:
    kind = kpi_kind(row)
    flags: tuple[str, ...] = () if complete else (INCOMPLETE,)
    if is_provisional(row):
        flags += (PROVISIONAL,)
    if row.get("small_base") is True:
        flags += (SMALL_BASE,)
    return KpiTile(
        key=metric,
        label=label,
        value=kind.text(row["value"]),
        previous=kind.text(row["previous"]),
        delta=kind.change(row["delta"]),
        # a relative change from zero or a negative number (net subscribers) reads as nonsense
        delta_pct=(
            numbers.signed_percent(row["delta_pct"])
            if _positive(row["previous"])
            else numbers.MISSING
        ),
        direction=numbers.news(row),
        flags=flags,
    )


def _positive(value: Any) -> bool:
    return not numbers.missing(value) and float(value) > 0


def _parameters(
    wh: Warehouse, period: ReportPeriod, previous: ReportPeriod, channels: Sequence[str]
) -> tuple[tuple[str, str], ...]:
    return (
        ("Period", period.label),
        ("Compared with", previous.label),
        ("Timezone", period.tz.key),
        ("Channels", ", ".join(channels) if channels else "all"),
        ("Warehouse", wh.path.name),
    )


def _freshness(fresh: Freshness, tz: ZoneInfo) -> tuple[tuple[str, str], ...]:
    counts = fresh.row_counts
    last_sync = numbers.MISSING
    if fresh.last_sync_at is not None:
        last_sync = f"{numbers.local_time(fresh.last_sync_at, tz)} ({fresh.last_sync_mode})"
    return (
        ("Last completed sync", last_sync),
        ("Source", fresh.base_url or numbers.MISSING),
        ("Latest analytics day", str(fresh.last_post_day or numbers.MISSING)),
        (
            "Rows",
            f"{numbers.whole(counts.get('posts'))} posts, {numbers.whole(counts.get('channels'))} "
            f"channels, {numbers.whole(counts.get('post_daily'))} daily post rows",
        ),
    )


def _trend_section(trend: pd.DataFrame, freq: str, tz: ZoneInfo, young: pd.DataFrame) -> Section:
    title = "Readers and opens over time"
    intro = (
        f"Per {freq}: readers and read rate of the posts published that {freq}, and opens "
        "and engagements of every post."
    )
    if trend.empty or (trend["opens"].sum() == 0 and trend["posts_published"].sum() == 0):
        return Section("trend", title, intro, empty="No opens and no posts in this period.")
    # The days still gathering readers are marked, heading where their young posts are.
    figure = plots.engagement_over_time(trend, outlook=young)
    # plotly picks how many dates fit the width (one per bar does not fit on a phone)
    figure.update_xaxes(tickvals=None, tickmode="auto", nticks=REPORT_TREND_TICKS)
    peak = _largest(trend, "readers")
    when = _period_words(peak["period"], freq)
    key = f"the most readers, {numbers.whole(peak['readers'])}, for the posts of {when}"
    drawn = chart(figure, "ck-trend", trend, tz=tz, key=key, columns=_TREND_COLUMNS)
    return Section("trend", title, intro, charts=(drawn,), lead=True)


def _posts(count: Any) -> str:
    """ "1 post", "12 posts" """
    return f"{numbers.whole(count)} post" + ("" if int(count) == 1 else "s")


def _largest(frame: pd.DataFrame, column: str) -> pd.Series:
    """The first row with the largest `column` (missing values count as the smallest)."""
    values = frame[column].astype("float64").fillna(float("-inf")).to_numpy()
    return frame.iloc[int(values.argmax())]


def _period_words(value: Any, freq: str) -> str:
    day = pd.Timestamp(value)
    return f"{day:%d %b %Y}" if freq == "day" else f"the {freq} of {day:%d %b %Y}"


_TREND_COLUMNS = (
    "period",
    "readers",
    "read_rate",
    "provisional",
    "posts_published",
    "opens",
    "engagements",
    "engagement_rate",
)


def _text(value: Any) -> str:
    return numbers.MISSING if numbers.missing(value) else str(value)


def _title_cell(title: Any, body: str) -> Cell:
    excerpt = body[:REPORT_BODY_EXCERPT_CHARS]
    if len(body) > REPORT_BODY_EXCERPT_CHARS:
        excerpt += "\u2026"
    if not excerpt.strip():
        return _text(title)
    return Markup('{}<details><summary>Post</summary><div class="body">{}</div></details>').format(
        _text(title), markdown_html(excerpt)
    )


def _tags(value: Any) -> str:
    if not pd.api.types.is_list_like(value):
        return ""
    return ", ".join(str(tag) for tag in value)


def _top_section(
    section_id: str,
    title: str,
    top: pd.DataFrame,
    bodies: dict[str, str],
    tz: ZoneInfo,
    same_as: pd.DataFrame | None = None,
) -> Section:
    """The top posts; with `same_as` (the ranking by readers) given, a ranking by read rate
    that orders its posts as readers would (one audience: a rate is readers over the same
    number) is a sentence instead of a second chart and table that say the same."""
    intro = (
        "Posts published in the period; readers are the people who opened a post at least "
        "once, read rate is readers per subscriber of its channel when it was published."
    )
    by = str(top.attrs.get("by", "readers"))
    if by == "read_rate":
        intro += (
            f" {FAIR_NOTE.capitalize()}: each post's rate is pulled toward its channel's by "
            "as much as its audience is small, so a post seen by a few cannot top the list "
            "by luck; the range beside each rate is its 95% interval."
        )
        too_few = int(top.attrs.get("too_few_to_rank") or 0)
        if too_few:
            intro += (
                f" {too_few:,} {'post' if too_few == 1 else 'posts'} with an audience under "
                f"{FAIR_MIN_BASE} {'is' if too_few == 1 else 'are'} too few to rank."
            )
    if top.empty:
        return Section(section_id, title, intro, empty="No posts published in this period.")
    if same_as is not None and top["readers"].is_monotonic_decreasing:
        same = "The same order as the most read posts above: their channel has one audience."
        if len(top) < len(same_as) or list(top["post_id"]) != list(same_as["post_id"]):
            same += " Posts still collecting readers are left out of a ranking by read rate."
        return Section(section_id, title, intro, empty=same)
    columns = (
        TableColumn("#", numeric=True),
        TableColumn("Title"),
        TableColumn("Readers", numeric=True),
        TableColumn("Read rate (95% interval)" if by == "read_rate" else "Read rate", numeric=True),
        TableColumn("Opens", numeric=True),
        TableColumn("Channel"),
        TableColumn("Published", nowrap=True),
    )
    show = _Kinds(top)
    rows = tuple(
        (
            show(row, "rank"),
            _title_cell(row["title"], bodies.get(str(row["post_id"]), "")),
            show(row, "readers"),
            show.interval(row) if by == "read_rate" else show(row, "read_rate"),
            show(row, "opens"),
            _text(row["channel"]),
            numbers.local_time(row["published_at"], tz),
        )
        for row in top.to_dict("records")
    )
    first = top.iloc[0]
    what = (
        f"a read rate of {show(first, 'read_rate')} ({FAIR_NOTE})"
        if by == "read_rate"
        else f"{show(first, 'readers')} readers"
    )
    key = f"the first, \u201c{_text(first['title'])}\u201d, had {what}"
    drawn = chart(
        plots.top_posts(top), f"ck-{section_id}", top, tz=tz, key=key, columns=_TOP_CHART_COLUMNS
    )
    return Section(
        section_id,
        title,
        intro,
        charts=(drawn,),
        table=Table(columns, rows),
        lead=same_as is None,
    )


def _low_reach_section(frame: pd.DataFrame, tz: ZoneInfo) -> Section:
    title = "Posts that reached few of their audience"
    intro = (
        "Posts whose read rate is below half their channel's median read rate, worst first, "
        "with the 95% interval of each rate: a post seen by few has a wide one."
    )
    young = int(frame.attrs.get("still_collecting_readers") or 0)
    waiting: tuple[str, ...] = ()
    if young:
        waiting = (
            f"{young:,} {'post is' if young == 1 else 'posts are'} still collecting readers "
            "(younger than their channel's typical reach time): not judged yet.",
        )
    if frame.empty:  # an empty section shows no notes
        empty = " ".join(("No post fell that far behind.", *waiting))
        return Section("low-reach", title, intro, empty=empty)
    columns = (
        TableColumn("Title"),
        TableColumn("Readers", numeric=True),
        TableColumn("Read rate", numeric=True),
        TableColumn("Channel median", numeric=True),
        TableColumn("Channel"),
        TableColumn("Published", nowrap=True),
    )
    shown = frame.head(REPORT_GROUP_ROWS_LIMIT)
    show = _Kinds(frame)
    rows = tuple(
        (
            _text(row["title"]),
            show(row, "readers"),
            show.interval(row),
            show(row, "channel_median"),
            _text(row["channel"]),
            numbers.local_time(row["published_at"], tz),
        )
        for row in shown.to_dict("records")
    )
    notes: tuple[str, ...] = ()
    if len(frame) > len(shown):
        notes = (f"{len(frame) - len(shown):,} more posts are in the CSV export (--csv).",)
    return Section("low-reach", title, intro, table=Table(columns, rows), notes=waiting + notes)


def _channel_section(frame: pd.DataFrame, tz: ZoneInfo) -> Section:
    title = "Channels"
    intro = (
        "Read rate is the readers of the posts published in the period per subscriber the "
        f"channel had when each was published. Channels are {FAIR_NOTE}: each channel's "
        "rate is pulled toward the workspace's by as much as its audience is small, so a "
        "small channel cannot come first by luck; the range is the rate's 95% interval. "
        f"Channels whose posts had fewer than {FAIR_MIN_BASE} subscribers in all are too "
        "few to rank and come last."
    )
    if frame.empty:
        return Section("channels", title, intro, empty="No channels.")
    columns = (
        TableColumn("#", numeric=True),
        TableColumn("Channel"),
        TableColumn("Readers", numeric=True),
        TableColumn("Read rate (95% interval)", numeric=True),
        TableColumn("Posts", numeric=True),
        TableColumn("Opens", numeric=True),
        TableColumn("Engagement rate", numeric=True),
        TableColumn("Net subscribers", numeric=True),
        TableColumn("Subscribers", numeric=True),
    )
    show = _Kinds(frame)
    rows = tuple(
        (
            "too few to rank" if row["too_few_to_rank"] is True else show(row, "rank"),
            _text(row["channel"]),
            show(row, "readers"),
            show.interval(row),
            show(row, "posts_published"),
            show(row, "opens"),
            show(row, "engagement_rate"),
            show.of("net_subscribers").change(row["net_subscribers"]),  # a gain or a loss
            show(row, "subscribers"),
        )
        for row in frame.to_dict("records")
    )
    table = Table(columns, rows).without_empty_columns()
    rated = frame[~frame["too_few_to_rank"].fillna(True).astype(bool)]
    if len(rated) < 2:  # one bar compares nothing: the table says it all
        return Section("channels", title, intro, table=table)
    best = rated.iloc[0]
    key = (
        f"first {FAIR_NOTE.removeprefix('ranked ')}: {_text(best['channel'])}, "
        f"{_rate_interval(best)}"
    )
    drawn = chart(
        plots.channel_comparison(frame),
        "ck-channels",
        frame,
        tz=tz,
        key=key,
        columns=_CHANNEL_CHART_COLUMNS,
    )
    return Section("channels", title, intro, charts=(drawn,), table=table)


_CHANNEL_CHART_COLUMNS = (
    "channel",
    "readers",
    "read_rate",
    "audience",
    "posts_published",
    "opens",
    "engagement_rate",
)


def _group_section(
    section_id: str,
    title: str,
    label: str,
    key: str,
    frame: pd.DataFrame,
    draw: Callable[[pd.DataFrame], Any],
    tz: ZoneInfo,
) -> Section:
    intro = (
        "Posts published in the period. Lift is the median of each post's read rate divided "
        "by its channel's median, so big channels do not decide the answer: +20.0% reads "
        "as 20% better than usual. Readers vs expected is their readers over what their "
        "channels' read rates expect, with its 95% interval; the chart ranks by it adjusted "
        f"for audience size. Fewer than {SMALL_SAMPLE_POSTS} posts are too few to rank."
    )
    if frame.empty or int(frame["posts"].sum()) == 0:
        return Section(section_id, title, intro, empty="No posts published in this period.")
    columns = (
        TableColumn(label),
        TableColumn("Readers", numeric=True),
        TableColumn("Read rate", numeric=True),
        TableColumn("Lift", numeric=True),
        TableColumn("Readers vs expected (95% interval)", numeric=True),
        TableColumn("Posts", numeric=True),
        TableColumn("Median opens", numeric=True),
        TableColumn("Sample"),
    )
    shown = frame.head(REPORT_GROUP_ROWS_LIMIT)
    show = _Kinds(frame)
    rows = tuple(
        (
            _text(row[key]),
            show(row, "readers"),
            show(row, "read_rate"),
            show(row, "lift"),
            show.interval(row, "vs_expected"),
            show(row, "posts"),
            show(row, "median_opens"),
            "too few to rank" if row["too_few_to_rank"] is True else "",
        )
        for row in shown.to_dict("records")
    )
    notes: tuple[str, ...] = ()
    if len(frame) > len(shown):
        notes = (f"{len(frame) - len(shown):,} more rows are in the CSV export (--csv).",)
    table = Table(columns, rows).without_empty_columns()
    ranked = frame[~frame["too_few_to_rank"].fillna(True).astype(bool)]
    ranked = ranked.dropna(subset=["adjusted_vs_expected"])
    if len(ranked) < 2:  # one bar compares nothing: the table says it all
        return Section(section_id, title, intro, table=table, notes=notes)
    top = _largest(ranked, "adjusted_vs_expected")
    chart_key = (
        f"the most read against expectations ({FAIR_NOTE}): {label.lower()} "
        f"{_text(top[key])}, {_rate_interval(top, 'vs_expected', show.of('vs_expected'))} "
        f"on {_posts(top['posts'])}"
    )
    drawn = chart(
        draw(frame),
        f"ck-{section_id}",
        frame,
        tz=tz,
        key=chart_key,
        # readers and read rate first: they stay on a phone's screen, the drawn value after
        columns=(
            key,
            "readers",
            "read_rate",
            "adjusted_vs_expected",
            "vs_expected_low",
            "vs_expected_high",
            "lift",
            "posts",
            "too_few_to_rank",
        ),
    )
    return Section(section_id, title, intro, charts=(drawn,), table=table, notes=notes)


def _heatmap_section(frame: pd.DataFrame, tz: ZoneInfo) -> Section:
    title = "When posts were published"
    intro = (
        "Posts published by weekday and hour (local time), and the readers those posts "
        "received; the data has no hour of reading. Readers per post set an hour of two "
        "posts beside one of two hundred: whether any hour is reliably better is "
        "wh.best_times()'s verdict (and what --slots best uses)."
    )
    if int(frame["posts_published"].sum()) == 0:
        return Section("heatmap", title, intro, empty="No posts published in this period.")
    figures = heatmaps_one_by_one(plots.publishing_heatmap(frame))
    keys = (
        ("posts_published", _busiest(frame, "posts_published", "published", _posts)),
        (
            "readers_per_post",
            _busiest(frame, "readers_per_post", "readers per post", numbers.count),
        ),
    )
    charts = tuple(
        chart(figure, f"ck-heatmap-{n}", frame, tz=tz, key=key, columns=_heatmap_columns(shown))
        for n, (figure, (shown, key)) in enumerate(zip(figures, keys, strict=True), start=1)
    )
    return Section("heatmap", title, intro, charts=charts)


def _heatmap_columns(shown: str) -> tuple[str, ...]:
    """The slot, then the number the heatmap shows: on a phone it stays on screen."""
    rest = ("readers", "posts_published", "readers_per_post", "opens", "engagements")
    return ("weekday_name", "hour", shown, *(column for column in rest if column != shown))


def _busiest(frame: pd.DataFrame, column: str, what: str, fmt: Callable[[Any], str]) -> str:
    """ "the most, 12 posts published, on Tue at 09:00" (called when posts were published,
    so that every slot with a post has both numbers)."""
    top = _largest(frame, column)
    slot = f"{top['weekday_name']} at {int(top['hour']):02d}:00"
    behind = "" if column == "posts_published" else f" ({_posts(top['posts_published'])})"
    return f"the most, {fmt(top[column])} {what}, on {slot}{behind}"


def _upcoming_section(frame: pd.DataFrame, tz: ZoneInfo, as_of: datetime) -> Section:
    title = "Upcoming scheduled posts"
    intro = (
        f"Scheduled after {numbers.local_time(as_of, tz)} ({tz.key}), as known at the last sync."
    )
    if frame.empty:
        return Section("upcoming", title, intro, empty="No scheduled posts.")
    columns = (
        TableColumn("Scheduled", nowrap=True),
        TableColumn("Title"),
        TableColumn("Channel"),
        TableColumn("Priority"),
        TableColumn("Tags"),
    )
    shown = frame.head(REPORT_UPCOMING_LIMIT)
    rows = tuple(
        (
            numbers.local_time(row["scheduled_at"], tz),
            _text(row["title"]),
            _text(row["channel_name"]),
            _text(row["priority"]),
            _tags(row["tags"]),
        )
        for row in shown.to_dict("records")
    )
    notes: tuple[str, ...] = ()
    if len(frame) > len(shown):
        notes = (f"{len(frame) - len(shown):,} more scheduled posts are not shown.",)
    return Section("upcoming", title, intro, table=Table(columns, rows), notes=notes)


def _gap_caveat(fresh: Freshness, tz: ZoneInfo) -> list[str]:
    last = last_data_day(fresh)
    if fresh.last_sync_at is None or last is None:
        return []
    sync_day = local_date(fresh.last_sync_at, tz)
    if (sync_day - last).days <= 1:
        return []
    return [
        f"The newest analytics are for {last}, but the last sync ran on {sync_day}: the "
        "days in between have no engagement data yet (or the sync skipped analytics)."
    ]


def _caveats(
    period: ReportPeriod,
    by_tag: pd.DataFrame,
    by_priority: pd.DataFrame,
) -> list[str]:
    caveats = [
        "Readers and read rate count the posts published in the period (their readers "
        "to date); opens and engagements count every post's activity in the period.",
        "Deleted posts and channels are left out everywhere.",
    ]
    if period.tz.key != "UTC":
        caveats.append(
            f"Daily engagement rows are UTC days; each counts as the {period.tz.key} day with the "
            "same date. Publication times are converted to local time exactly."
        )
    flagged = by_priority[by_priority["small_sample"].fillna(False).astype(bool)]
    small = [str(priority) for priority in flagged["priority"]]
    n = by_priority.attrs.get("small_sample_n")
    if small and n:
        caveats.append(
            f"Small samples: fewer than {n} posts with priority {', '.join(small)}; "
            "differences between priorities may be chance."
        )
    small_tags = int(by_tag["small_sample"].fillna(False).sum()) if not by_tag.empty else 0
    if small_tags:
        caveats.append(
            f"{small_tags} of {len(by_tag)} tags are on fewer than "
            f"{by_tag.attrs.get('small_sample_n')} posts (marked small)."
        )
    return caveats

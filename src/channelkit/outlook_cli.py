"""`channelkit outlook`: where the young posts are heading, or how well that forecast would
have done on the warehouse's own history (`--backtest`), read from the warehouse alone.

    channelkit outlook --db warehouse.duckdb --channel "All Hands"
    channelkit outlook --db warehouse.duckdb --backtest
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import click
import pandas as pd

from channelkit._cli import (
    Output,
    channel_option,
    options_value,
    output_options,
    user_errors,
    warehouse_option,
)


@dataclass(frozen=True)
class OutlookOptions:
    """`channelkit outlook`'s flags.

    >>> OutlookOptions(Path("warehouse.duckdb")).backtest
    False
    """

    db: Path
    channels: tuple[str, ...] = ()
    backtest: bool = False


@click.command("outlook")
@options_value(OutlookOptions, "options")
@warehouse_option()
@channel_option()
@click.option(
    "--backtest",
    is_flag=True,
    help="Replay the history: the forecasts settled posts would have had at 1, 2 and 3 days.",
)
@output_options(json_summary=True)
def outlook(options: OutlookOptions, output: Output) -> None:
    """Forecast each young post's settled readers, with an 80% interval and a verdict.

    Lists the posts younger than their channel's settled age: readers so far, where each
    is heading and whether that is behind, on track with or ahead of its channel's usual
    range. Provisional until the posts settle. With --backtest, the same forecast made for
    every settled post at 1, 2 and 3 days, judged against what it reached, beside the naive
    forecast (the channel's usual): pooled, per channel and per weekday.
    """
    run_outlook_command(options, output)


def run_outlook_command(options: OutlookOptions, output: Output) -> None:
    """`channelkit outlook`'s work, on its checked values."""
    from channelkit.warehouse import Warehouse

    if not options.db.exists():
        raise click.BadParameter(
            f"{str(options.db)!r} does not exist; run `channelkit sync --db {options.db}` first",
            param_hint="--db",
        )
    channel = list(options.channels) or None
    with user_errors():
        wh = Warehouse(options.db)
        if options.backtest:
            table = wh.outlook_backtest(channel=channel)
            output.json({"backtest": _records(table), "as_of": table.attrs["as_of"]})
            output.result(backtest_text(table))
            return
        young = wh.outlook(channel=channel)
    output.json({"posts": _records(young), "as_of": young.attrs["as_of"]})
    output.result(outlook_text(young))


def backtest_text(table: pd.DataFrame) -> str:
    """The backtest as a small table: one line per age, pooled, then per channel and per
    weekday of the forecast, each forecast judged against the readers its post reached by
    the end of the synced history."""
    lines = [
        f"Outlook backtest {table.attrs['period_label']}: each settled post's forecast at the "
        "age shown, from the posts settled by then, against the readers it had reached by "
        "the last synced day",
        f"{'':<22} {'age':>4} {'posts':>7} {'abstained':>10} {'in 80% interval':>16} "
        f"{'below':>6} {'above':>6} {'median error':>13} {'naive error':>12} {'vs naive':>9}",
    ]
    gaining = []
    for row in table.itertuples():
        label = {"all": "all channels", "weekday": f"forecast on a {row.weekday}"}.get(
            str(row.scope), str(row.channel)
        )
        lines.append(
            f"{label[:22]:<22} {row.age_days:>3}d {row.posts:>7,} {row.abstained:>10,} "
            f"{_pct(row.coverage):>16} {_pct(row.below):>6} {_pct(row.above):>6} "
            f"{_num(row.median_abs_error):>13} {_num(row.naive_median_abs_error):>12} "
            f"{_ratio(row.error_vs_naive):>9}"
        )
        if (
            row.scope == "channel"
            and row.still_gaining is not pd.NA
            and bool(row.still_gaining)
            and row.channel not in gaining
        ):
            gaining.append(str(row.channel))
    if table.empty:
        lines.append("no settled post old enough to replay")
    for name in gaining:
        lines.append(
            f"note: {name}'s posts had not stopped gaining readers by the last synced day; "
            "its figures are judged against readers still growing"
        )
    return "\n".join(lines)


def outlook_text(young: pd.DataFrame) -> str:
    """The young posts, newest first: age, readers so far, forecast and verdict."""
    head = (
        f"Young posts {young.attrs['period_label']} (provisional: each heading for the readers "
        "its channel's posts have by the day they settle)"
    )
    if young.empty:
        return f"{head}\nno post younger than the settled age"
    lines = [head]
    for row in young.itertuples():
        heading = (
            f"heading for {_num(row.forecast_readers)} "
            f"({_num(row.forecast_low)}-{_num(row.forecast_high)}), usual "
            f"{_num(row.usual_low)}-{_num(row.usual_high)}"
            if not math.isnan(_float(row.forecast_readers))
            else ""
        )
        lines.append(
            f"- {row.title} ({row.channel}, day {row.age_days}, settles by day "
            f"{row.settles_by_day}): {row.readers:,} readers so far; "
            f"{heading}{'; ' if heading else ''}{row.verdict}{_why(row.reason)}"
        )
    return "\n".join(lines)


def _why(reason: object) -> str:
    """ "(why)" after an abstention's verdict."""
    return f" ({reason})" if isinstance(reason, str) and reason else ""


def _records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """The rows for --json, a missing value as null (JSON has no NaN)."""
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return [{str(k): v for k, v in row.items()} for row in rows]


def _float(value: object) -> float:
    """A number of the frame as a float; NaN for NA."""
    try:
        return float(str(value))
    except ValueError:
        return math.nan


def _num(value: object) -> str:
    number = _float(value)
    return "-" if math.isnan(number) else f"{number:,.0f}"


def _pct(value: object) -> str:
    number = _float(value)
    return "-" if math.isnan(number) else f"{number:.0%}"


def _ratio(value: object) -> str:
    number = _float(value)
    return "-" if math.isnan(number) else f"{number:.2f}x"

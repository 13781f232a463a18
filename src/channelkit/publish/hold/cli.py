"""`channelkit hold` and `channelkit release`: stop the schedule on a bad day, put it back.

channelkit hold                          # every scheduled post the key can change
channelkit hold --channel all-hands --from 2026-12-01 --to 2026-12-03
channelkit hold --status                 # what is held, by whom, since when
channelkit release                       # each back at its time, once
channelkit release --shift 1d            # missed ones a day later (or --publish-missed now)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict
from zoneinfo import ZoneInfo

import click
from click.decorators import FC

from channelkit._cli import (
    Day,
    Output,
    ServiceOptions,
    options_value,
    output_options,
    reach,
    service_options,
    tz_option,
    user_errors,
)
from channelkit._tz import DEFAULT_ZONE
from channelkit.publish.post.missed_options import missed_options, parse_missed

if TYPE_CHECKING:
    from channelkit.publish.hold.holding import HeldPost


@dataclass(frozen=True)
class HoldScope:
    """The flags `hold` and `release` share: which posts (all when none is given)."""

    channel: tuple[str, ...] = ()
    tag: tuple[str, ...] = ()
    start: str | None = None
    end: str | None = None
    tz: ZoneInfo | None = None  # resolved by --tz's type

    @property
    def zone(self) -> ZoneInfo:
        return self.tz or DEFAULT_ZONE


@dataclass(frozen=True)
class HoldOptions(HoldScope):
    """`channelkit hold`'s flags, as given.

    >>> HoldOptions(channel=("all-hands",), status=True).tag
    ()
    """

    status: bool = False
    by: str | None = None


@dataclass(frozen=True)
class ReleaseOptions(HoldScope):
    """`channelkit release`'s flags, as given.

    >>> ReleaseOptions(shift="1d").publish_missed is None
    True
    """

    publish_missed: str | None = None
    shift: str | None = None


def _scope_flags(command: FC) -> FC:
    for flag in reversed(
        [
            click.option("--channel", multiple=True, help="Channel id, slug or name (repeat)."),
            click.option("--tag", multiple=True, help="Only posts with this tag (repeat)."),
            click.option(
                "--from",
                "start",
                type=Day(),
                help="Posts scheduled from this day or time, in --tz.",
            ),
            click.option(
                "--to", "end", type=Day(), help="Posts scheduled before this day or time, in --tz."
            ),
            tz_option(
                "Time zone of --from/--to (needed with them) and of the times listed (UTC).",
                default=None,
            ),
        ]
    ):
        command = flag(command)
    return command


@click.command()
@options_value(HoldOptions, "options")
@click.option("--status", is_flag=True, help="List what is held, by whom and since when.")
@click.option("--by", metavar="NAME", help="Who holds them (default: your user name).")
@_scope_flags
@service_options()
@output_options()
def hold(options: HoldOptions, service: ServiceOptions, output: Output) -> None:
    """Hold every scheduled post at once: each one's time is recorded, then it moves to
    draft (marked, so every machine sees it held) until `channelkit release`."""
    with user_errors():
        run_hold_command(options, service, output)


def run_hold_command(options: HoldOptions, service: ServiceOptions, output: Output) -> None:
    from channelkit.client import Client
    from channelkit.publish.hold.holding import held_posts
    from channelkit.publish.hold.holding import hold as hold_posts

    config = service.config(needed_for="to hold posts")
    with Client(**config.client_settings()) as client:
        reach(client, config, output.warn)
        if options.status:
            held = held_posts(client, **_filter_keywords(options))
            for post in held:
                output.result(f"held  {post.line(options.zone)}  {_by(post, options.zone)}")
            output.json({"held": [_json(post) for post in held]})
            output.result(f"{len(held)} post{'s' if len(held) != 1 else ''} held")
            return
        result = hold_posts(client, by=options.by, **_filter_keywords(options))
    for post in result.held:
        output.result(f"held  {post.line(options.zone)}")
    for post, why in result.skipped:
        output.warn(f"{post.line(options.zone)}: {why}")
    output.json(
        {
            "held": [_json(post) for post in result.held],
            "already_held": [_json(post) for post in result.already],
            "not_held": [{**_json(post), "why": why} for post, why in result.skipped],
        }
    )
    output.result(
        f"{len(result.held)} held now, {len(result.already)} held before, "
        f"{len(result.skipped)} not held; put them back with `channelkit release`"
    )
    if result.skipped:
        raise SystemExit(1)


@click.command()
@options_value(ReleaseOptions, "options")
@missed_options(waited="held")
@_scope_flags
@service_options()
@output_options()
def release(options: ReleaseOptions, service: ServiceOptions, output: Output) -> None:
    """Put each held post back at its scheduled time, exactly once. A post whose time
    passed while held is listed and stays held (unless --publish-missed now or --shift);
    one edited or deleted by someone else while held is reported and left as it is."""
    with user_errors():
        run_release_command(options, service, output)


def run_release_command(options: ReleaseOptions, service: ServiceOptions, output: Output) -> None:
    from channelkit.client import Client
    from channelkit.publish.hold.holding import release as release_posts

    publish_now, shift = parse_missed(publish_missed=options.publish_missed, shift=options.shift)
    config = service.config(needed_for="to release posts")
    with Client(**config.client_settings()) as client:
        reach(client, config, output.warn)
        result = release_posts(
            client,
            publish_missed=publish_now,
            shift=shift,
            **_filter_keywords(options),
        )
    zone = options.zone
    for post, when in result.released:
        if when is None:
            output.result(f"published now  {post.line(zone)}")
        elif when != post.scheduled_at:
            moved = _local(when, zone)
            output.result(f"released  {post.line(zone)}  moved to {moved}")
        else:
            output.result(f"released  {post.line(zone)}")
    for post in result.missed:
        output.warn(
            f"missed  {post.line(zone)}: its time passed while it was held; it stays held "
            "(release it with --publish-missed now or --shift DURATION)"
        )
    for post, why in result.left:
        output.warn(f"left  {post.line(zone)}: {why}")
    for post in result.already:
        output.result(f"already back  {post.line(zone)}  (put back by another run meanwhile)")
    output.json(
        {
            "released": [{**_json(post), "at": _iso(when)} for post, when in result.released],
            "missed": [_json(post) for post in result.missed],
            "left": [{**_json(post), "why": why} for post, why in result.left],
            "already_released": [_json(post) for post in result.already],
        }
    )
    elsewhere = f", {len(result.already)} put back by another run" if result.already else ""
    output.result(
        f"{len(result.released)} released, {len(result.missed)} missed (still held), "
        f"{len(result.left)} left as they are{elsewhere}"
    )
    if result.missed or result.left:
        raise SystemExit(1)


class FilterKeywords(TypedDict):
    """The keywords of `hold`, `release` and `held_posts` that choose the posts."""

    channel: list[str] | None
    tag: list[str] | None
    start: str | None
    end: str | None
    tz: ZoneInfo | None


def _filter_keywords(options: HoldScope) -> FilterKeywords:
    """The flags as the keywords of `hold`, `release` and `held_posts`: --from/--to are read
    in --tz, else CHANNELKIT_TZ, never in UTC by default (the publishing rule)."""
    return FilterKeywords(
        channel=list(options.channel) or None,
        tag=list(options.tag) or None,
        start=options.start,
        end=options.end,
        tz=options.tz,
    )


def _by(post: HeldPost, zone: ZoneInfo) -> str:
    since = "" if post.since is None else f" since {_local(post.since, zone)}"
    return f"by {post.by or 'someone'}{since}"


def _local(moment: datetime, zone: ZoneInfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _json(post: HeldPost) -> dict[str, object]:
    return {
        "post_id": post.post_id,
        "channel": post.channel,
        "title": post.title,
        "scheduled_at": post.scheduled_at.isoformat(),
        "held_by": post.by,
        "held_since": _iso(post.since),
    }

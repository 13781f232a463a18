"""`--publish-missed now` and `--shift DURATION`: what `approve` and `release` do with a
post whose time passed while it waited (the rule itself is `times.missed_time`).

    @missed_options(waited="held")
    def release(...): ...
    publish_now, shift = parse_missed(publish_missed="now", shift=None)  # (True, None)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import click
from click.decorators import FC

from channelkit.publish.post.times import parse_gap


def missed_options(*, waited: str) -> Callable[[FC], FC]:
    """The two flags, their help naming how the post waited ("held", "waiting")."""
    publish = click.option(
        "--publish-missed",
        type=click.Choice(["now"]),
        help=f"Publish now the posts whose time passed while {waited} "
        f"(default: they stay {waited}).",
    )
    shift = click.option(
        "--shift",
        metavar="DURATION",
        help=f"Put the posts whose time passed while {waited} back this much later (1d, 2h, 90m).",
    )
    return lambda command: publish(shift(command))


def parse_missed(*, publish_missed: str | None, shift: str | None) -> tuple[bool, timedelta | None]:
    """(publish now, shift) from the flags; both at once is refused: they say different things."""
    if publish_missed and shift:
        raise click.UsageError("--publish-missed and --shift say different things: give one")
    return publish_missed == "now", None if shift is None else parse_gap(shift, param="shift")

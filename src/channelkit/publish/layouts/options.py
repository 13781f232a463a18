"""The flags that place another tool's posts: `--channel`, `--map`, `--map-file`,
`--date-order`, `--layout-file` (of `channelkit schedule`, and of `channelkit calendar
export`, which writes the names back).

    choices = parse_choices(channel=None, maps=("Facebook=news",), map_file=None,
                            date_order="dmy", layout_file=None)
    # Choices(names=(("Facebook", "news"),), date_order="dmy")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click
from click.decorators import FC

from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.library import known_layouts
from channelkit.publish.layouts.read import Choices
from channelkit.publish.layouts.stamps import ORDERS


def layout_options(*, channel: bool = True) -> Callable[[FC], FC]:
    """`--channel` (with `channel`), `--map`, `--map-file`, `--date-order` and
    `--layout-file`."""
    options = [
        click.option(
            "--map",
            "map_names",
            multiple=True,
            metavar="NAME=CHANNEL",
            help="Files from other tools: the channel a profile or network name of the file "
            "goes to (repeat for each name).",
        ),
        click.option(
            "--map-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Files from other tools: a file of NAME=CHANNEL lines (or NAME,CHANNEL).",
        ),
        click.option(
            "--date-order",
            type=click.Choice(sorted(ORDERS)),
            help="Dates written A/B/YYYY: dmy (day first) or mdy (month first), as you chose "
            "when uploading to that tool (or as your spreadsheet writes them in a posts "
            "file); needed only where the file does not settle it.",
        ),
        click.option(
            "--layout-file",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Files from other tools: a layout file (TOML) saying which column holds "
            "what, for a tool channelkit does not ship (docs/publishing.md, 'Moving from "
            "another tool'); the folder CHANNELKIT_LAYOUTS names adds the team's.",
        ),
    ]
    if channel:
        options.insert(
            0,
            click.option(
                "--channel",
                help="Files from other tools: the channel of every post of the file.",
            ),
        )

    def decorate(command: FC) -> FC:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def parse_choices(
    *,
    channel: str | None,
    maps: Sequence[str],
    map_file: Path | None,
    date_order: str | None,
    layout_file: Path | None = None,
) -> Choices:
    """The choices the flags make; `InvalidParameterError` for a malformed `--map` or
    layout file."""
    pairs = [_pair(text, "map") for text in maps]
    if map_file is not None:
        pairs += _read_map(map_file)
    layouts = known_layouts(layout_file) if layout_file is not None else ()
    return Choices(
        channel=channel or None, names=tuple(pairs), date_order=date_order, layouts=layouts
    )


def _read_map(path: Path) -> list[tuple[str, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InvalidParameterError("map_file", f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidParameterError("map_file", f"{path} is not UTF-8 text") from None
    pairs = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if line and not line.startswith("#"):
            pairs.append(_pair(line, "map_file", where=f"{path.name} line {number}: "))
    return pairs


def _pair(text: str, param: str, *, where: str = "") -> tuple[str, str]:
    separator = "=" if "=" in text else ","
    name, _, channel = text.partition(separator)
    if not name.strip() or not channel.strip():
        raise InvalidParameterError(
            param, f"{where}{text!r} is not NAME=CHANNEL, e.g. Facebook=company-news"
        )
    return name.strip(), channel.strip()

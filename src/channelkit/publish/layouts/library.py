"""The layouts channelkit knows: the built-in layout files, and a team's own folder.

The built-in layouts are TOML files shipped in `publish/layouts/builtin/` (one per tool,
read by `layouts/files.py` as any team's file is); a folder named by CHANNELKIT_LAYOUTS
adds the team's (a file whose key is a built-in one's replaces it); `--layout-file` reads
a file with that layout alone.

    LAYOUTS["buffer"].name                          # 'Buffer'
    [layout.key for layout in known_layouts()]      # built-in, then the team's

Reads files: the built-in ones once, at import; the team's folder at each call.
"""

from __future__ import annotations

import os
from pathlib import Path

from channelkit._constants import ENV_LAYOUTS, LAYOUT_FILE_SUFFIX
from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.files import load_layout

BUILTIN = Path(__file__).with_name("builtin")


def _folder(folder: Path) -> dict[str, Layout]:
    return {
        layout.key: layout
        for layout in map(load_layout, sorted(folder.glob(f"*{LAYOUT_FILE_SUFFIX}")))
    }


LAYOUTS: dict[str, Layout] = _folder(BUILTIN)


def known_layouts(layout_file: Path | None = None) -> tuple[Layout, ...]:
    """The layouts a file is recognised by: the one of `layout_file` alone, else the
    built-in ones and the team's folder (CHANNELKIT_LAYOUTS)."""
    if layout_file is not None:
        return (load_layout(layout_file),)
    return tuple({**LAYOUTS, **team_layouts()}.values())


def layout_named(key: str) -> Layout:
    """The known layout (built-in or the team's) whose key is `key`."""
    layouts = {layout.key: layout for layout in known_layouts()}
    if key not in layouts:
        raise InvalidParameterError(
            "layout", f"{key!r} is not a layout; use one of {', '.join(layouts)}"
        )
    return layouts[key]


def team_layouts() -> dict[str, Layout]:
    """The layout files of the folder CHANNELKIT_LAYOUTS names (none when unset)."""
    named = os.environ.get(ENV_LAYOUTS, "").strip()
    if not named:
        return {}
    folder = Path(named).expanduser()
    if not folder.is_dir():
        raise InvalidParameterError(
            ENV_LAYOUTS, f"{folder} is not a folder (of the team's layout files, *.toml)"
        )
    return _folder(folder)

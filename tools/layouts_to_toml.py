"""One-off: write the built-in layout files from a Python module that declares `LAYOUTS`.

The layouts were Python declarations (publish/layouts/declared.py before the layout
files); a branch that still edits them there is merged, then its declarations are turned
into the TOML files the package ships:

    git show main:src/channelkit/publish/layouts/declared.py > /tmp/declared.py
    PYTHONPATH=src python tools/layouts_to_toml.py /tmp/declared.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from channelkit.publish.layouts.files import layout_toml
from channelkit.publish.layouts.library import BUILTIN


def main(declared: Path) -> None:
    spec = importlib.util.spec_from_file_location("old_declared", declared)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    for old in BUILTIN.glob("*.toml"):
        old.unlink()
    for key, layout in module.LAYOUTS.items():
        (BUILTIN / f"{key}.toml").write_text(layout_toml(layout), encoding="utf-8")
        print(f"wrote {key}.toml")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

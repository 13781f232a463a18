"""Package attributes that import their module on first use (PEP 562).

`import channelkit` and `channelkit --help` stay fast because pandas, DuckDB, plotly and the
service load only when a name that needs them is touched.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(
    package: str, targets: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return `__getattr__` and `__dir__` for `package`.

    `targets` maps a public name to "module:attribute", or to "module" for a submodule.
    A loaded value is cached in the package's namespace, so each import happens once.

        __getattr__, __dir__ = lazy_attributes(__name__, {"Client": "channelkit.client:Client"})
    """

    def __getattr__(name: str) -> Any:
        target = targets.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        module = importlib.import_module(module_name)
        value = getattr(module, attribute) if attribute else module
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        # The public names and the dunders; not the helpers and submodules the package
        # happens to hold, so that completion in a notebook shows what is meant for use.
        namespace = vars(sys.modules[package])
        public = namespace.get("__all__", targets)
        return sorted({*public, *(name for name in namespace if _is_dunder(name))})

    return __getattr__, __dir__


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")

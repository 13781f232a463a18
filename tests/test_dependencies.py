"""Declared dependencies match the imports: none unused, none missing.

Read from pyproject.toml and from the import statements of src/ and tests/ (also those
inside functions). A distribution's import names come from the installed metadata.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import defaultdict
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

# Declared, used, but never named in an import statement: each with the reason.
USED_WITHOUT_IMPORT = {
    "httptools": "uvicorn's HTTP parser: uvicorn picks it when installed (http='auto')",
    "uvloop": "uvicorn's event loop: uvicorn picks it when installed (loop='auto')",
    "tzdata": "the IANA zones for zoneinfo where the system has none (Windows)",
}


# Extras that set up a developer's machine rather than a capability of channelkit.
_TOOLING_EXTRAS = {"test", "dev"}


def _project() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert isinstance(project, dict)
    return project


def _runtime() -> list[str]:
    dependencies = _project()["dependencies"]
    assert isinstance(dependencies, list)
    return dependencies


def _names(requirements: list[str]) -> set[str]:
    names = {_normal(Requirement(text).name) for text in requirements}
    return {name for name in names if name != "channelkit"}  # an extra naming other extras


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def _distributions_of() -> dict[str, set[str]]:
    """Import name -> the (normalised) distributions that install it."""
    found: dict[str, set[str]] = defaultdict(set)
    for module, distributions in packages_distributions().items():
        found[module] |= {_normal(d) for d in distributions}
    return found


def _imported(directory: Path) -> dict[str, str]:
    """Top-level third-party modules imported under `directory` -> one file importing it."""
    found: dict[str, str] = {}
    for path in sorted(directory.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.partition(".")[0]
                if top not in sys.stdlib_module_names and top in _distributions_of():
                    found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def _distributions(imported: dict[str, str]) -> set[str]:
    return {d for module in imported for d in _distributions_of()[module]}


def test_every_runtime_dependency_is_imported_by_src() -> None:
    declared = _names(_runtime())
    unused = declared - _distributions(_imported(ROOT / "src")) - set(USED_WITHOUT_IMPORT)
    assert not unused, f"declared in [project] dependencies but never imported: {sorted(unused)}"


def test_every_library_src_imports_is_declared() -> None:
    # at run time, or in an extra of an optional capability (imported where it is used,
    # through channelkit._optional.require)
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    declared = _names(_runtime())
    for name, requirements in extras.items():
        if name not in _TOOLING_EXTRAS:
            declared |= _names(requirements)
    missing = {
        module: where
        for module, where in _imported(ROOT / "src").items()
        if module != "channelkit" and not _distributions_of()[module] & declared
    }
    assert not missing, f"imported by src/ but declared nowhere: {missing}"


def test_the_test_extra_installs_everything_the_suite_imports() -> None:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    available = _names(_runtime())
    for name in _included_extras("test", extras):
        available |= _names(extras[name])
    missing = {
        module: where
        for module, where in _imported(ROOT / "tests").items()
        if module not in {"channelkit", "fixtures"} and not _distributions_of()[module] & available
    }
    assert not missing, f"imported by tests/ but not in the test extra: {missing}"


def _included_extras(name: str, extras: dict[str, list[str]]) -> set[str]:
    """`name` and the extras it pulls in with `channelkit[...]`, recursively."""
    found = {name}
    for text in extras[name]:
        requirement = Requirement(text)
        if requirement.name == "channelkit":
            for extra in requirement.extras - found:
                found |= _included_extras(extra, extras)
    return found


def test_used_without_import_lists_only_declared_dependencies() -> None:
    declared = _names(_runtime())
    assert set(USED_WITHOUT_IMPORT) <= declared

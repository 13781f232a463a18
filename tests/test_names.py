"""One name, one meaning: no two public functions or classes of `src/` share a name unless
they are one concept at two layers, listed in docs/architecture.md ("One concept at two
layers"). The table is read from the doc, so the doc and this test cannot drift."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "channelkit"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SECTION = "## One concept at two layers"


def _public_definitions() -> dict[str, set[str]]:
    """Each public top-level function or class name → the modules (paths under the package)
    that define it. Module-private `_names` are out of scope (docs/architecture.md says why)."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            if isinstance(node, kinds) and not node.name.startswith("_"):
                found[node.name].add(path.relative_to(PACKAGE).as_posix())
    return found


def _listed_in_doc() -> dict[str, set[str]]:
    """The doc's table: `name` | concept | each layer as `path` (under src/channelkit)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/architecture.md has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    listed: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 3 or set(cells[0]) <= set("-: "):
            continue
        names = re.findall(r"`([A-Za-z_]\w*)`", cells[0])
        if not names:  # the header row
            continue
        paths = set(re.findall(r"`([\w/]+\.py)`", cells[2]))
        assert cells[1], f"the row of {names} names no concept"
        for name in names:
            assert name not in listed, f"{name} has two rows in {SECTION!r}"
            listed[name] = paths
    assert listed, f"no rows read from {SECTION!r}"
    return listed


def test_no_two_public_definitions_share_a_name_unless_the_doc_lists_them() -> None:
    shared = {name: paths for name, paths in _public_definitions().items() if len(paths) > 1}
    listed = _listed_in_doc()
    unlisted = {name: sorted(paths) for name, paths in shared.items() if name not in listed}
    assert not unlisted, (
        f"names defined in two modules, not one concept at two layers of {SECTION!r}: "
        f"{unlisted} (rename one, or add a row naming the concept and its layers)"
    )
    wrong = {
        name: {"defined in": sorted(shared.get(name, ())), "the doc says": sorted(paths)}
        for name, paths in listed.items()
        if shared.get(name) != paths
    }
    assert not wrong, f"rows of {SECTION!r} that no longer match the code: {wrong}"


def test_the_walk_and_the_table_are_not_empty() -> None:
    """The check is not vacuous: the walk finds a known pair with its files, and every row of
    the table is a name the package defines more than once."""
    definitions = _public_definitions()
    assert definitions["reach_curve"] == {"analysis/reach.py", "plots/reach.py"}
    assert all(len(definitions[name]) > 1 for name in _listed_in_doc())

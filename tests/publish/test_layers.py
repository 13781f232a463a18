"""The publishing wings import one way: post → approval → layouts → sheets → hold →
calendar → commands.

Every module of `channelkit.publish` is found on disk (no hand list), so a new module or a
new wing is covered the moment it exists: a module outside the declared wings turns this red.
"""

from __future__ import annotations

import ast
from pathlib import Path

import channelkit.publish

PACKAGE = Path(channelkit.publish.__file__).parent
PREFIX = "channelkit.publish."

# Bottom to top; the commands (`cli.py`, `cell.py`, `cell_file.py`) sit above all.
WINGS = ("post", "approval", "layouts", "sheets", "hold", "calendar")
TOP = "commands"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path, known: set[str]) -> set[str]:
    """Every channelkit.publish module `path` imports, at any level (type-only included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith(PREFIX) and name[len(PREFIX) :] in known:
                found.add(name[len(PREFIX) :])
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules) - {""}
    return {
        name: _imports(path, known) - {name}
        for name, path in modules.items()
        if name and not name.endswith("__init__")
    }


def _wing(module: str) -> str:
    head = module.split(".")[0]
    return head if "." in module or head in WINGS else TOP


def test_every_module_lives_in_a_declared_wing_or_is_a_command() -> None:
    folders = {path.parent.name for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE}
    assert folders == set(WINGS), f"wings on disk {sorted(folders)} vs declared {WINGS}"
    commands = sorted(module for module in _graph() if _wing(module) == TOP)
    assert commands == ["cell", "cell_file", "cli"], commands


def test_no_import_cycle_inside_publish() -> None:
    graph = _graph()
    state: dict[str, str] = {}

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "open"
        for target in sorted(graph[module]):
            assert state.get(target) != "open", f"import cycle: {' → '.join([*trail, target])}"
            if target not in state:
                visit(target, [*trail, target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_wings_import_only_downwards() -> None:
    rank = {wing: index for index, wing in enumerate((*WINGS, TOP))}
    upward = [
        f"{module} ({_wing(module)}) imports {target} ({_wing(target)})"
        for module, targets in sorted(_graph().items())
        for target in sorted(targets)
        if rank[_wing(target)] > rank[_wing(module)]
    ]
    assert not upward, "\n".join(upward)


def test_the_bottom_wing_stands_alone() -> None:
    """The rules every post obeys import no other wing: a new route can reuse them whole."""
    graph = _graph()
    outside = {
        module: sorted(target for target in targets if not target.startswith("post."))
        for module, targets in graph.items()
        if module.startswith("post.")
    }
    assert not any(outside.values()), outside


def test_row_types_sending_results_plan_in_that_order() -> None:
    graph = _graph()
    order = ["post.row_types", "post.sending", "sheets.results", "sheets.plan"]
    for index, module in enumerate(order):
        later = set(order[index + 1 :])
        assert not graph[module] & later, f"{module} imports {sorted(graph[module] & later)}"
    assert graph["post.row_types"] <= {"post.validation", "post.times", "post.sent_before"}

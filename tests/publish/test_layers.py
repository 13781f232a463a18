"""The publishing modules import one way: row types → sending → results → plan → the rest."""

from __future__ import annotations

import ast
from pathlib import Path

import channelkit.publish

PACKAGE = Path(channelkit.publish.__file__).parent
PREFIX = "channelkit.publish."


def _imports(path: Path) -> set[str]:
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
            if name.startswith(PREFIX):
                module = name[len(PREFIX) :].split(".")[0]
                if (PACKAGE / f"{module}.py").exists():
                    found.add(module)
    return found


def _graph() -> dict[str, set[str]]:
    return {
        path.stem: _imports(path) - {path.stem}
        for path in PACKAGE.glob("*.py")
        if path.stem != "__init__"
    }


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


def test_row_types_sending_results_plan_in_that_order() -> None:
    graph = _graph()
    order = ["row_types", "sending", "results", "plan"]
    for index, module in enumerate(order):
        later = set(order[index + 1 :])
        assert not graph[module] & later, f"{module} imports {sorted(graph[module] & later)}"
    assert graph["row_types"] <= {"validation", "times", "sent_before"}

"""The layers of the house, checked on the import graph of src/channelkit (grimp).

Top to bottom (docs/architecture.md draws it):

    cli                          names the subcommands; nothing imports it
    demo, widgets, reports       the jobs users run
    _facade (ck.sync), publish   join parts / publish through the client
    read API (Warehouse) -> analysis;  plots (DataFrames in, figures out)
    sync -> storage (the DuckDB file, Parquet, lake)
    client | service             independent of each other
    _cli, _tz, _optional, _lazy, _markdown, _channels, ...   shared leaf helpers
    _spec, errors, _constants, _version    the bottom: no other channelkit module, no library

Every import counts, also one inside a function (a lazy import is still a dependency);
for the layer rules, imports under `if TYPE_CHECKING:` do not (they do not run), for the
cycles they do. A rule that another branch is
still fixing is marked `xfail(strict=True)` with who fixes it: once it passes, the strict
xfail fails and the mark must go.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import grimp
import pytest

ROOT = "channelkit"
SRC = Path(__file__).resolve().parents[1] / "src"

_BOTTOM = ("channelkit._spec", "channelkit.errors", "channelkit._constants", "channelkit._version")
_HELPERS = (
    "channelkit._cli",
    "channelkit._tz",
    "channelkit._optional",
    "channelkit._lazy",
    "channelkit._markdown",
    "channelkit._channels",
    "channelkit._suggest",
    "channelkit._files",
    "channelkit._labels",
    "channelkit._terminal",
    "channelkit._urls",
    "channelkit._resources",
    "channelkit._job_runs",
    "channelkit._sqlite_record",
    "channelkit.display",
)
_LIBRARIES = (
    "click",
    "httpx",
    "pydantic",
    "starlette",
    "uvicorn",
    "pandas",
    "pyarrow",
    "duckdb",
    "plotly",
    "ipywidgets",
    "openpyxl",
    "jinja2",
    "markdown_it",
    "nh3",
    "tqdm",
)


@dataclass(frozen=True)
class Rule:
    """Modules under `sources` must not import (even indirectly) anything under `forbidden`."""

    id: str
    why: str
    sources: tuple[str, ...]
    forbidden: tuple[str, ...]


def _parts(*names: str) -> tuple[str, ...]:
    return tuple(f"{ROOT}.{name}" for name in names)


_UPPER = _parts(
    "analysis", "plots", "publish", "reports", "sync", "storage", "warehouse", "widgets",
    "export", "status", "outlook_cli", "watch",
    "cli", "demo", "_facade",
)  # fmt: skip

RULES = [
    Rule(
        "bottom",
        "the contract, errors and constants import no other part and no library",
        _BOTTOM,
        (*_UPPER, *_parts("client", "service"), *_HELPERS, *_LIBRARIES),
    ),
    Rule(
        "leaf-helpers",
        "the shared helpers import only the bottom, each other and libraries",
        _HELPERS,
        (*_UPPER, *_parts("client", "service")),
    ),
    Rule(
        "service",
        "the service imports only the contract, errors, constants and helpers",
        _parts("service"),
        (*_UPPER, *_parts("client")),
    ),
    Rule(
        "client",
        "the client imports only the contract, errors, constants and helpers",
        _parts("client"),
        (*_UPPER, *_parts("service")),
    ),
    Rule(
        "sync",
        "the sync writes through the storage and never imports the read API or analysis",
        _parts("sync"),
        (*_parts("service"), *(m for m in _UPPER if m != "channelkit.storage")),
    ),
    Rule(
        "sync-planning",
        "the sync's planning and argument checks are pure: no storage, network or threads",
        _parts("sync.history", "sync.windows", "sync.options"),
        (
            "duckdb",
            "httpx",
            "pyarrow",
            "threading",
            *_parts("storage", "client", "sync.pipeline", "sync.runner", "sync.walks"),
        ),
    ),  # fmt: skip
    Rule(
        "storage",
        "the storage imports neither the read API and analysis (above it) nor the sync "
        "(which writes through it)",
        _parts("storage"),
        (*(m for m in _UPPER if m != "channelkit.storage"), *_parts("service")),
    ),
    Rule(
        "plots",
        "plots take DataFrames: no DuckDB, no analysis, no warehouse",
        _parts("plots"),
        (
            "duckdb",
            *_parts("analysis", "storage", "warehouse", "sync", "client", "service", "reports"),
            *_parts("cli"),
        ),
    ),
    Rule(
        "command-line",
        "subcommands use the leaf _cli helpers, never channelkit.cli (which names them)",
        tuple(
            m for m in (*_UPPER, *_parts("client", "service"), *_HELPERS) if m != "channelkit.cli"
        ),
        _parts("cli"),
    ),
]

# rule id or cycle scope -> the branch whose merge makes it pass
PENDING: dict[str, str] = {}


@cache
def _graph(*, with_type_imports: bool = False) -> grimp.ImportGraph:
    # No cache: grimp's is keyed by file times, which a checkout of another branch may keep.
    return grimp.build_graph(
        ROOT,
        include_external_packages=True,
        exclude_type_checking_imports=not with_type_imports,
        cache_dir=None,
    )


def _present(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in _graph().modules]


def _pending(key: str) -> list[pytest.MarkDecorator]:
    reason = PENDING.get(key)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _violations(rule: Rule) -> Iterator[str]:
    graph = _graph()
    for source in _present(rule.sources):
        for forbidden in _present(rule.forbidden):
            if _within(source, forbidden) or _within(forbidden, source):
                continue  # a part may import itself: `sync` forbids the rest of the house
            for chain in sorted(graph.find_shortest_chains(importer=source, imported=forbidden)):
                yield " -> ".join(chain) + _where(chain[0], chain[1])


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _where(importer: str, imported: str) -> str:
    details = _graph().get_import_details(importer=importer, imported=imported)
    if not details:
        return ""
    first = details[0]
    return f"  ({importer}, line {first['line_number']}: {first['line_contents']})"


@pytest.mark.parametrize(
    "rule", [pytest.param(rule, id=rule.id, marks=_pending(rule.id)) for rule in RULES]
)
def test_layer_rule(rule: Rule) -> None:
    found = list(_violations(rule))
    assert not found, f"{rule.why}; these import chains break it:\n" + "\n".join(found)


def test_every_rule_names_modules_that_exist() -> None:
    # a rule naming a missing module (a typo, a rename) would pass without checking it
    for rule in RULES:
        named = [m for m in (*rule.sources, *rule.forbidden) if _within(m, ROOT)]
        missing = sorted(set(named) - set(_present(tuple(named))))
        assert not missing, f"rule {rule.id!r} names modules that do not exist: {missing}"


def test_every_top_level_module_has_a_layer() -> None:
    # a new module outside every list would be checked by no rule
    known = {*_BOTTOM, *_HELPERS, *_UPPER, *_parts("client", "service")}
    unplaced = sorted(_children(ROOT) - known)
    assert not unplaced, (
        f"place {unplaced} in a layer of tests/test_layers.py (and of docs/architecture.md)"
    )


def _children(package: str) -> set[str]:
    return {child for child in _graph().find_children(package) if not child.endswith("__main__")}


def _cycles(package: str, graph: grimp.ImportGraph | None = None) -> list[str]:
    """Import cycles between the children of `package`, each with the imports that close it.

    Type-only imports count here: a cycle of types is still two parts that need each other.
    """
    graph = graph or _graph(with_type_imports=True)
    children = sorted(c for c in graph.find_children(package) if not c.endswith("__main__"))

    def part(module: str) -> str | None:
        return next((c for c in children if module == c or module.startswith(c + ".")), None)

    edges: dict[str, dict[str, tuple[str, str]]] = {c: {} for c in children}
    for importer in graph.modules:
        a = part(importer)
        if a is None:
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            b = part(imported)
            if b is not None and b != a:
                edges[a].setdefault(b, (importer, imported))
    reports = []
    for group in _strongly_connected({a: set(bs) for a, bs in edges.items()}):
        if len(group) > 1:
            links = [
                f"  {a} -> {b}  ({edges[a][b][0]} imports {edges[a][b][1]})"
                for a in sorted(group)
                for b in sorted(edges[a])
                if b in group
            ]
            reports.append(f"cycle between {', '.join(sorted(group))}:\n" + "\n".join(links))
    return reports


def _strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    def reach(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    reachable = {node: reach(node) for node in edges}
    groups: list[set[str]] = []
    for node in edges:
        group = {other for other in reachable[node] if node in reachable[other]}
        if group not in groups:
            groups.append(group)
    return groups


def _packages() -> list[str]:
    """The package root and every package under it."""
    graph = _graph(with_type_imports=True)
    return sorted(m for m in graph.modules if _within(m, ROOT) and graph.find_children(m))


@pytest.mark.parametrize("package", [pytest.param(p, id=p, marks=_pending(p)) for p in _packages()])
def test_no_import_cycles_between_parts(package: str) -> None:
    cycles = _cycles(package)
    assert not cycles, "\n".join(cycles)


def test_every_package_is_checked_for_cycles() -> None:
    # a package found by walking the source folder, so one grimp missed would show here
    found = {
        ".".join(init.parent.relative_to(SRC).parts) for init in (SRC / ROOT).rglob("__init__.py")
    }
    assert found and found == set(_packages())


def test_nothing_imports_the_package_root() -> None:
    # `from channelkit import __version__` below the root runs all of __init__ (and is a
    # cycle through it): the version is in _version.py
    graph = _graph(with_type_imports=True)
    importers = sorted(graph.find_modules_that_directly_import(ROOT))
    assert importers == [], importers


def test_cycle_finder_finds_a_cycle() -> None:
    groups = _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert {"a", "b", "c"} in groups and {"d"} in groups


def test_cycle_finder_sees_imports_inside_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `reports/deliver/run.py` and `upcoming.py` once did: lazy imports, still a cycle."""
    package = tmp_path / "lazy_cycle"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "run.py").write_text(
        "def go():\n    from lazy_cycle import upcoming\n", encoding="utf-8"
    )
    (package / "upcoming.py").write_text(
        "def back():\n    from lazy_cycle import run\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("lazy_cycle", cache_dir=None)
    assert _cycles("lazy_cycle", graph) == [
        "cycle between lazy_cycle.run, lazy_cycle.upcoming:\n"
        "  lazy_cycle.run -> lazy_cycle.upcoming  "
        "(lazy_cycle.run imports lazy_cycle.upcoming)\n"
        "  lazy_cycle.upcoming -> lazy_cycle.run  (lazy_cycle.upcoming imports lazy_cycle.run)"
    ]


def test_no_import_of_the_sync_package_under_the_name_of_ck_sync() -> None:
    # `ck.sync` is a function, so `import channelkit.sync.runner as runner` (which looks up
    # the attribute channelkit.sync) fails; `from channelkit.sync import runner` works.
    graph = _graph()
    offenders = [
        f"{importer} line {detail['line_number']}: {detail['line_contents']}"
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported == "channelkit.sync" or imported.startswith("channelkit.sync.")
        for detail in graph.get_import_details(importer=importer, imported=imported)
        if detail["line_contents"].startswith("import channelkit.sync")
        and " as " in detail["line_contents"]
    ]
    assert not offenders, "\n".join(offenders)


def test_the_sync_reads_and_writes_through_the_storage() -> None:
    # `storage/` owns the DuckDB file: the sync asks it (writer, holdings), it writes no SQL.
    package = Path(__file__).parents[1] / "src" / "channelkit" / "sync"
    offenders = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(package.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if ".execute(" in line or ".sql(" in line
    ]
    assert not offenders, "\n".join(offenders)

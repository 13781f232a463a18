"""A time zone is resolved once, at the edge: below it no function takes a zone as text.

The edges (command lines, `ck.*` functions and `Warehouse` methods, widget handlers, the
files a zone is read from) are listed in docs/architecture.md ("Time zones: the edge"),
with the modules not yet converted; the test reads both lists from the doc, so the doc and
this test cannot drift, and the "to do" list can only shrink (a module listed there that no
longer takes a zone as text fails too)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "channelkit"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SECTION = "## Time zones: the edge"
ZONE_NAME = re.compile(r"^_?(tz|zone|zone_name)$|_tz$|_zone$")


def _texts(annotation: ast.expr | None) -> bool:
    """Whether `annotation` admits a `str` (`str`, `str | None`, `Optional[str]`, ...)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return _texts(ast.parse(annotation.value, mode="eval").body)
    return any(isinstance(node, ast.Name) and node.id == "str" for node in ast.walk(annotation))


def _zones_as_text(tree: ast.AST) -> Iterator[str]:
    """`name:line` of each parameter, and each class field (a dataclass' parameter), named
    like a zone and annotated with `str`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            for argument in every:
                if ZONE_NAME.search(argument.arg) and _texts(argument.annotation):
                    yield f"{node.name}({argument.arg}):{argument.lineno}"
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                target = statement.target if isinstance(statement, ast.AnnAssign) else None
                if isinstance(statement, ast.AnnAssign) and isinstance(target, ast.Name):
                    if ZONE_NAME.search(target.id) and _texts(statement.annotation):
                        yield f"{node.name}.{target.id}:{statement.lineno}"


@cache
def _found() -> dict[str, list[str]]:
    """Each module (path under the package) → where it takes a zone as text."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        places = list(_zones_as_text(ast.parse(path.read_text(encoding="utf-8"))))
        if places:
            found[path.relative_to(PACKAGE).as_posix()] = places
    return found


def _listed(kind: str) -> set[str]:
    """The modules of the section's list whose line starts with `kind` ("Edges", "To do")."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert SECTION in text, f"docs/architecture.md has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    paragraphs = [part for part in section.split("\n\n") if part.startswith(f"**{kind}")]
    assert len(paragraphs) == 1, f"{SECTION!r} has no one paragraph starting **{kind}"
    return set(re.findall(r"`([\w/]+\.py)`", paragraphs[0]))


def test_below_the_edge_no_function_takes_a_zone_as_text() -> None:
    edges, to_do = _listed("Edges"), _listed("To do")
    wrong = {path: places for path, places in _found().items() if path not in edges | to_do}
    assert not wrong, (
        f"zones taken as text below the edge: {wrong} (take a ZoneInfo, resolved once at the "
        f"edge by _tz.load_zone; or, for a new edge, list its module in {SECTION!r})"
    )


def test_the_lists_only_name_modules_that_need_them() -> None:
    """A converted module leaves the "to do" list (so it only shrinks); no module is both."""
    edges, to_do = _listed("Edges"), _listed("To do")
    assert not edges & to_do, f"both an edge and to do: {sorted(edges & to_do)}"
    missing = sorted(path for path in edges | to_do if not (PACKAGE / path).is_file())
    assert not missing, f"listed in {SECTION!r} but not in src/channelkit: {missing}"
    done = sorted(to_do - set(_found()))
    assert not done, f"converted, so strike them from the 'To do' list of {SECTION!r}: {done}"


def test_the_walk_sees_every_way_of_writing_a_zone_as_text() -> None:
    """Not vacuous: each spelling below is found, and a ZoneInfo or another name is not."""
    source = """
class Post:
    tz: str
    zone: "str | None"
    count: str

def f(a, tz: str, *, zone_name: Optional[str], report_tz: str | None, ok: ZoneInfo): ...
def g(zone: ZoneInfo, name: str, tz: ZoneInfo | None = None): ...
"""
    found = [place.rsplit(":", 1)[0] for place in _zones_as_text(ast.parse(source))]
    assert sorted(found) == ["Post.tz", "Post.zone", "f(report_tz)", "f(tz)", "f(zone_name)"]

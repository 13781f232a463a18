"""Executable documentation: every example in README.md and docs/*.md runs as printed.

Each page is one test. Its fenced `python`, `bash`, `sh` and `console` blocks run in
order, in a fresh directory of their own, against the local service with the demo
workspace (started by this test, like a reader's `channelkit serve --seed demo`), with a
copy of a synced `warehouse.duckdb` as a reader who did the tour has one. Bash blocks run
with `bash -e` and keep their `export`s for the page's later blocks; Python blocks share
one namespace per page. `.venv` in the page's directory is this interpreter's virtualenv,
so `.venv/bin/channelkit` works as in a checkout. A renamed option or function therefore
fails the page that documents it.

What a reader would type differently, the test types for them (and only this):

- `127.0.0.1:8000` and `--port 8000` become the port of the page's service;
- `export CHANNELKIT_API_KEY=...` becomes the demo key that the line's comment names
  (`# the analyst key ...`; admin when none is named);
- `channelkit serve` without `--rate-window` gets `--rate-window 1` (a reader's sync may
  wait out a minute-long rate-limit window; the test's service, like the one the page's
  blocks share, uses a one-second window).

Every page runs as of one pinned instant, `DOCS_AS_OF`: the page's service, the CLI, a
`channelkit serve` a block starts and every other Python process believe it (the calendar
run's `tests/travel/sitecustomize.py`), so a printed date ("schedule at 2026-12-01 09:00", a
sheet for the week of the 14th) stays ahead of "now" on whatever day the suite runs.

A page that names the bucket `s3://lake/channelkit` gets an S3-compatible store holding that
bucket (moto's server, `tests/fixtures/s3.py`) for its blocks, its credentials in the
standard AWS variables of the blocks' environment, as a reader's machine has them.

Blocks that cannot run here say so in the Markdown, on the line before the fence:

- `<!-- docs-test: skip (why) -->`: not run (the real service, a fresh virtualenv, ...);
- `<!-- docs-test: background -->`: a server; started, awaited until it prints, stopped
  when the page is done;
- `<!-- docs-test: exit N -->`: the block (in a `console` block, its last command) is
  expected to exit with N;
- `<!-- docs-test: file NAME -->`: the block (any language: a TOML configuration, ...) is
  the file NAME that the page's later commands read; it is written, as shown, in the
  page's directory.

In a `console` block, lines starting with `$ ` are commands and the lines after them the
output to compare with (`...` stands for anything; each line must appear, in order).

Commands in the text (`` `channelkit report --upcoming 36h` ``) run too, after the page's
blocks, in the same directory: a reader copies them as well. One that names a command only
(`` `channelkit hold` ``), holds a placeholder (`` `channelkit deliver CONFIG.toml` ``) or is
in `INLINE_NOT_RUN` (with why) is checked against its `--help` instead: the command exists
and takes every flag shown.
"""

from __future__ import annotations

import code
import contextlib
import itertools
import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

import pytest

from channelkit.service import LocalService
from fixtures.s3 import S3_LAKE, s3_store

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_LANGUAGES = {"python", "bash", "sh", "console", "shell"}
DEMO_KEY_NAMES = ("admin", "analyst", "writer", "starter")
BLOCK_TIMEOUT = 120
# A Monday morning a day before the earliest time the pages schedule a post for
DOCS_AS_OF = "2026-11-30T10:00+01:00"
TRAVEL = ROOT / "tests" / "travel"
SERVER_START_TIMEOUT = 60

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"<!--\s*docs-test:\s*(?P<what>[a-z]+)\s*(?P<arg>[^>]*?)\s*-->")
# `channelkit ...` in the text, outside code blocks (a span may wrap across lines)
_INLINE = re.compile(r"(?<!`)`(?P<command>(?:\.venv/bin/)?channelkit\s[^`]+)`(?!`)")
_PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]+\b")  # CONFIG.toml, NB.ipynb, DIR_OR_URL
# Commands in the text that are not run as printed, and why (their --help is checked)
INLINE_NOT_RUN = {
    "channelkit serve --seed demo": "a server: the pages start one in a background block",
    "channelkit serve --seed steady": "a server: the pages start one in a background block",
    "channelkit schedule --slots best": "a flag of `channelkit schedule FILE`, in a block",
    "channelkit sync --lake": "the flag named; its value (a folder or a store) is in a block",
    "channelkit report --notebook": "the flag named; the pages run it with its notebook",
    "channelkit calendar export": "the command named; its file and flags are in a block",
    "channelkit deliver deliver.toml --db warehouse.duckdb": (
        "sends to the page's example.com mail server and webhooks; its --dry-run runs"
    ),
}
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")

pytestmark = pytest.mark.slow


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    marker: str | None = None
    marker_arg: str = ""

    @property
    def where(self) -> str:
        name = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page.name
        return f"{name}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of `page` with their language and the marker just before them."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        fence, language = match["fence"], match["info"].strip().split(" ")[0].lower()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end])
            end += 1
        marker = None
        marker_arg = ""
        previous = index - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        if previous >= 0 and (found_marker := _MARKER.search(lines[previous])):
            marker, marker_arg = found_marker["what"], found_marker["arg"]
        code = textwrap.dedent("\n".join(body)) + "\n"
        found.append(Block(page, index + 1, language, code, marker, marker_arg))
        index = end + 1
    return found


@dataclass(frozen=True)
class Inline:
    """A command in a page's text (not in a block), where it is."""

    page: Path
    line: int
    command: str

    def as_block(self) -> Block:
        return Block(self.page, self.line, "text", self.command + "\n")


def inline_commands(page: Path) -> list[Inline]:
    """The `channelkit ...` commands in `page`'s text, outside its fenced blocks."""
    lines = page.read_text(encoding="utf-8").splitlines()
    fenced = {
        block.line - 1 + n for block in blocks(page) for n in range(block.code.count("\n") + 2)
    }
    text = "\n".join("" if index in fenced else line for index, line in enumerate(lines))
    return [
        Inline(page, text.count("\n", 0, match.start()) + 1, " ".join(match["command"].split()))
        for match in _INLINE.finditer(text)
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Workspace:
    """The service a page talks to and what the reader would have exported."""

    base_url: str
    keys: dict[str, str]
    warehouse: Path
    analysts_warehouse: Path
    travel_env: dict[str, str]  # makes a Python process believe the pinned instant


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    import time_machine

    from channelkit.client import Client
    from channelkit.sync import run_sync

    directory = tmp_path_factory.mktemp("docs-workspace")
    # this process (the page's service, its Python blocks) and, through the variable, every
    # process a block starts: the same ticking clock (sitecustomize's "<instant> at <epoch>")
    started = time.time()
    travel_env = {
        "CHANNELKIT_TRAVEL": f"{DOCS_AS_OF} at {started!r}",
        "PYTHONPATH": os.pathsep.join(p for p in (str(TRAVEL), os.environ.get("PYTHONPATH")) if p),
    }
    with (
        time_machine.travel(datetime.fromisoformat(DOCS_AS_OF), tick=True),
        LocalService(seed="demo", rate_window=1.0, db=str(directory / "service.sqlite")) as svc,
    ):
        warehouse = directory / "warehouse.duckdb"
        with Client(base_url=svc.base_url, api_key=svc.demo_keys["admin"]) as client:
            assert run_sync(client, warehouse, progress=False).completed
        # A warehouse keeps one key's view (docs/warehouse.md, "Whose view"): the README's
        # reader syncs with the analyst key, so that page gets a warehouse the analyst filled.
        analysts = directory / "analyst.duckdb"
        with Client(base_url=svc.base_url, api_key=svc.demo_keys["analyst"]) as client:
            assert run_sync(client, analysts, progress=False).completed
        yield Workspace(svc.base_url, dict(svc.demo_keys), warehouse, analysts, travel_env)


@dataclass
class PageRun:
    """Runs one page's blocks in order, in its own directory; collects every failure."""

    page: Path
    directory: Path
    workspace: Workspace
    env: dict[str, str] = field(default_factory=dict)
    namespace: dict[str, object] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    port: int = 0
    background: list[subprocess.Popen[str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    resources: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / ".venv").symlink_to(Path(sys.prefix))
        filled = (
            self.workspace.analysts_warehouse
            if self.page.name == "README.md"
            else self.workspace.warehouse
        )
        shutil.copy(filled, self.directory / "warehouse.duckdb")
        self.keys = dict(self.workspace.keys)
        self.port = int(self.workspace.base_url.rsplit(":", 1)[1].split("/")[0])
        self.env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "CHANNELKIT_BASE_URL": self.workspace.base_url,
            "CHANNELKIT_API_KEY": self.keys["admin"],
            "COLUMNS": "100",
            **self.workspace.travel_env,
        }
        self.env.pop("CHANNELKIT_TZ", None)
        if S3_LAKE in self.page.read_text(encoding="utf-8"):
            self.env.update(self.resources.enter_context(s3_store()))

    # --- what the reader types differently ------------------------------------------------

    def typed(self, code: str) -> str:
        code = re.sub(r"127\.0\.0\.1:8000\b", f"127.0.0.1:{self.port}", code)
        code = re.sub(r"--port 8000\b", f"--port {self.port}", code)
        code = re.sub(
            r"(?m)^(?P<serve>(?:\S*/)?channelkit serve\b)(?![^\n#]*--rate-window)",
            r"\g<serve> --rate-window 1",
            code,
        )

        def key(match: re.Match[str]) -> str:
            comment = match["comment"] or ""
            name = next((n for n in DEMO_KEY_NAMES if n in comment.lower()), "admin")
            return f"{match['prefix']}{self.keys[name]}{match['comment'] or ''}"

        return re.sub(
            r"(?P<prefix>CHANNELKIT_API_KEY=)\.\.\.(?P<comment>[ \t]+#[^\n]*)?", key, code
        )

    # --- running -------------------------------------------------------------------------

    def run(self, block: Block) -> None:
        if block.marker == "file":
            (self.directory / block.marker_arg).write_text(block.code, encoding="utf-8")
            return
        if block.marker == "skip" or block.language not in RUN_LANGUAGES:
            return
        expected_exit = int(block.marker_arg) if block.marker == "exit" else 0
        if block.marker == "background":
            self.start_background(block)
        elif block.language == "python":
            self.run_python(block)
        elif block.language == "console":
            self.run_console(block, expected_exit)
        else:
            self.run_shell(block, self.typed(block.code), expected_exit)

    def fail(self, block: Block, what: str, output: str = "") -> None:
        shown = textwrap.indent(block.code.rstrip(), "    | ")
        tail = "\n".join(output.rstrip().splitlines()[-25:])
        self.failures.append(
            f"{block.where} ({block.language}) {what}\n{shown}\n"
            + (f"  output (last lines):\n{textwrap.indent(tail, '    ')}\n" if tail else "")
        )

    def run_shell(self, block: Block, script: str, expected_exit: int) -> str:
        env_file = self.directory / ".docs-test-env"
        wrapped = f"trap 'env -0 > {env_file}' EXIT\nset -e\n{script}"
        proc = subprocess.Popen(
            ["bash", "-c", wrapped],
            cwd=self.directory,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a server started by the block goes with it
        )
        try:
            stdout, stderr = proc.communicate(timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            hint = " (a server? mark the block <!-- docs-test: background -->)"
            self.fail(block, f"did not finish within {BLOCK_TIMEOUT} s{hint}", stdout + stderr)
            return ""
        output = stdout + stderr
        if proc.returncode != expected_exit:
            self.fail(block, f"exited {proc.returncode}, expected {expected_exit}", output)
        elif "Traceback (most recent call last)" in output:
            self.fail(block, "printed a traceback", output)
        if env_file.exists():
            pairs = env_file.read_bytes().split(b"\0")
            self.env = dict(p.decode().split("=", 1) for p in pairs if b"=" in p)
        return output

    def run_console(self, block: Block, expected_exit: int) -> None:
        commands: list[tuple[str, list[str]]] = []
        for line in self.typed(block.code).splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            elif commands:
                commands[-1][1].append(line)
        for number, (command, expected) in enumerate(commands, start=1):
            # an `exit N` marker is about the block's last command; the others must succeed
            code = expected_exit if number == len(commands) else 0
            output = self.run_shell(block, command, code)
            missing = _missing_lines(output, expected)
            if missing is not None:
                self.fail(block, f"`{command}` did not print {missing!r}", output)

    def run_python(self, block: Block) -> None:
        previous_env = dict(os.environ)
        previous_cwd = Path.cwd()
        os.environ.clear()
        os.environ.update(self.env)
        os.chdir(self.directory)
        try:
            exec(compile(self.typed(block.code), block.where, "exec"), self.namespace)
        except Exception as exc:  # reported with the block, like a failing shell block
            self.fail(block, f"raised {type(exc).__name__}: {exc}")
        finally:
            os.chdir(previous_cwd)
            os.environ.clear()
            os.environ.update(previous_env)

    def start_background(self, block: Block) -> None:
        self.port = free_port()
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {self.typed(block.code).strip()}"],
            cwd=self.directory,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.background.append(proc)
        assert proc.stdout is not None
        # a demo workspace is ready once its keys are printed, any other once it listens
        ready = "  export CHANNELKIT_API_KEY" if "--seed" in block.code else "listening at"
        lines: queue.Queue[str | None] = queue.Queue()
        # a reader thread keeps draining the server's output, so it never blocks on a full pipe
        threading.Thread(target=_forward_lines, args=(proc.stdout, lines), daemon=True).start()
        seen: list[str] = []
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        with contextlib.suppress(queue.Empty):
            while (line := lines.get(timeout=max(0.0, deadline - time.monotonic()))) is not None:
                seen.append(line)
                words = line.split()
                if words and words[0] in DEMO_KEY_NAMES and words[-1].startswith("ck_"):
                    self.keys[words[0]] = words[-1]
                if ready in line:
                    return
        what = "its keys" if "--seed" in block.code else "that it listens"
        self.fail(
            block, f"stopped, or printed {what} not within {SERVER_START_TIMEOUT} s", "".join(seen)
        )

    def run_inline(self, inline: Inline, ran: set[str]) -> None:
        """Run a command of the text as printed (unless a block of the page ran it already),
        or check the command and its flags against its --help (see the module's doc)."""
        block = inline.as_block()
        words = shlex.split(inline.command)
        concrete = len(words) > 2 and not _PLACEHOLDER.search(inline.command)
        if concrete and inline.command not in INLINE_NOT_RUN:
            if inline.command not in ran:
                self.run_shell(block, self.typed(inline.command), 0)
            return
        path = list(itertools.takewhile(lambda w: re.fullmatch(r"[a-z][a-z-]*", w), words[1:]))
        while path:
            shown = subprocess.run(
                [words[0], *path, "--help"],
                cwd=self.directory,
                env=self.env,
                capture_output=True,
                text=True,
                check=False,
            )
            if shown.returncode == 0:
                break
            path.pop()  # a positional argument such as `deliver.toml`, not a subcommand
        else:
            self.fail(block, f"no such command: {' '.join(words[:2])}")
            return
        unknown = [w.split("=")[0] for w in words if w.startswith("-") and w not in shown.stdout]
        if unknown:
            self.fail(block, f"`{' '.join(path)}` takes no {', '.join(unknown)}", shown.stdout)

    def stop(self) -> None:
        for proc in self.background:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        self.resources.close()


def _forward_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _missing_lines(output: str, expected: list[str]) -> str | None:
    """The first expected line not found (in order) in `output`, or None."""
    actual = output.splitlines()
    position = 0
    for wanted in (line.strip() for line in expected):
        if not wanted:
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in wanted.split("...")))
        while position < len(actual) and not pattern.search(actual[position]):
            position += 1
        if position == len(actual):
            return wanted
        position += 1
    return None


def run_page(page: Path, directory: Path, workspace: Workspace) -> list[str]:
    run = PageRun(page, directory, workspace)
    try:
        ran: set[str] = set()
        for block in blocks(page):
            run.run(block)
            if block.marker != "skip" and block.language in RUN_LANGUAGES:
                ran.update(" ".join(line.split()) for line in block.code.splitlines())
        for inline in inline_commands(page):
            run.run_inline(inline, ran)
    finally:
        run.stop()
    return run.failures


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs_as_printed(
    page: Path, tmp_path: Path, workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reader's own config folder (the approver's key, `approve --new-key`): never the
    # machine's, so the page runs as printed on any machine and any number of times.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    failures = run_page(page, tmp_path / "reader", workspace)
    assert not failures, f"{len(failures)} example(s) of {page.name} failed:\n\n" + "\n".join(
        failures
    )


class _Prompt(code.InteractiveConsole):
    """The plain `python` prompt, fed a block line by line as a paste does, compiling only."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[str] = []

    def runcode(self, code: object) -> None:  # compiling is the point; the page test runs it
        pass

    def showsyntaxerror(self, filename: str | None = None, **kwargs: object) -> None:
        self.errors.append(f"{sys.exc_info()[0].__name__}: {sys.exc_info()[1]}")


def paste_errors(block: Block) -> list[str]:
    """What the prompt says when `block` is pasted into it: a line the prompt reads as the
    end of an indented block, or a statement cut short by a blank line, is an error."""
    prompt = _Prompt()
    errors: list[str] = []
    for number, line in enumerate(block.code.splitlines(), start=1):
        prompt.push(line)
        if prompt.errors:
            errors.append(f"{block.where}, line {number} of the block: {prompt.errors.pop()}")
    if prompt.push(""):
        errors.append(f"{block.where}: the block ends inside an unfinished statement")
    return errors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_pastes_into_the_plain_prompt(page: Path) -> None:
    """Readers paste examples into `python`: an indented block needs a blank line after it."""
    errors = [
        error
        for block in blocks(page)
        if block.language == "python" and block.marker != "file"
        for error in paste_errors(block)
    ]
    assert not errors, "\n".join(errors)


def test_a_block_without_a_blank_line_after_with_fails_the_paste_check(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nwith open('x') as f:\n    text = f.read()\nprint(text)\n```\n"
        "```python\nwith open('x') as f:\n    text = f.read()\n\nprint(text)\n```\n",
        encoding="utf-8",
    )
    pasted = [paste_errors(block) for block in blocks(page)]
    assert [len(errors) for errors in pasted] == [1, 0]
    assert pasted[0][0].startswith("page.md:1, line 3 of the block: SyntaxError")


def test_a_renamed_option_fails_its_example(tmp_path: Path, workspace: Workspace) -> None:
    """The point of running the docs: an option renamed in the code fails the page."""
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\nchannelkit report --db warehouse.duckdb --period 7d --out weekly.html\n```\n"
        "```bash\nchannelkit report --db warehouse.duckdb --periodd 7d --out weekly.html\n```\n",
        encoding="utf-8",
    )
    failures = run_page(page, tmp_path / "reader", workspace)
    assert len(failures) == 1
    assert "page.md:4 (bash) exited 2, expected 0" in failures[0]
    assert "No such option '--periodd'. Did you mean '--period'?" in failures[0]


def test_markers_are_honoured(tmp_path: Path, workspace: Workspace) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs-test: skip (the real service) -->\n```bash\nfalse\n```\n"
        "<!-- docs-test: exit 2 -->\n```bash\nchannelkit synk\n```\n"
        "```console\n$ channelkit --version\nchannelkit, version ...\n```\n"
        "```console\n$ channelkit --version\nsomething else\n```\n"
        "```python\nx = 1\n```\n```python\nassert x == 2, 'x is still 1'\n```\n"
        "<!-- docs-test: file conf.toml -->\n```toml\nkey = 1\n```\n"
        "```console\n$ cat conf.toml\nkey = 1\n```\n",
        encoding="utf-8",
    )
    failures = run_page(page, tmp_path / "reader", workspace)
    assert [failure.splitlines()[0] for failure in failures] == [
        "page.md:13 (console) `channelkit --version` did not print 'something else'",
        "page.md:20 (python) raised AssertionError: x is still 1",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve_and_docs_are_self_sufficient(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = []
    for match in _LINK.finditer(text):
        target = match["target"].split("#", 1)[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue
        if not (page.parent / target).exists():
            broken.append(target)
    assert not broken, f"{page.name}: links to missing files: {broken}"
    for outside in ("decisions.md", "service-spec.md"):
        assert outside not in text, (
            f"{page.name} refers to {outside}, which is not in the repository: "
            "point to docs/api.md instead"
        )


def test_notebook_text_matches_the_demo_data(workspace: Workspace) -> None:
    """Notebook 01 promises "about N posts" of the demo workspace (the admin key's view)."""
    import duckdb

    text = (ROOT / "notebooks" / "01-explore-engagement.ipynb").read_text(encoding="utf-8")
    promised = re.search(r"about ([\d,]+) posts", text)
    assert promised is not None
    with duckdb.connect(str(workspace.warehouse), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM posts WHERE deleted_at IS NULL").fetchone()
    assert row is not None
    actual = row[0]
    assert abs(int(promised[1].replace(",", "")) - actual) <= 0.05 * actual, actual


def test_what_notebooks_write_is_ignored_by_git() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    written = [  # notebook 01's warehouse, notebook 03's report and warehouse
        "notebooks/explore-warehouse.duckdb",
        "notebooks/reports/weekly.html",
        "notebooks/weekly-warehouse.duckdb",
    ]
    for path in written:
        check = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False)
        assert check.returncode == 0, f"{path} would show up as untracked in git"

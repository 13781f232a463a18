"""Running a report notebook in a fresh kernel, bounded in time and output, and silent.

nbclient's `NotebookClient` runs the cells; `execute` adds what a scheduled report needs:
- one time limit for the whole run, kernel start included: each cell may take what is left;
- an output budget: the cell that goes past it is interrupted and what it still prints dropped;
- quiet: the kernel talks over Unix sockets in a private folder (not TCP ports any local user
  could listen to, which it warns about on stderr), and its own stdout and stderr
  ("KeyboardInterrupt caught", a subprocess writing to file descriptor 1) go to a file, not to
  the terminal or the cron mail; its last line is quoted when the kernel dies;
- plotly figures leave the kernel as their JSON only (`PLOTLY_RENDERER`), which the page draws
  with one plotly.js (`notebook_page`);
- no secret: the kernel inherits only the environment Python and Jupyter need
  (`kernel_environment`), never the API key, the SMTP password or a webhook URL; it starts
  in an empty folder of its own, and cannot read this process's environment or open files
  through /proc (`notebook_isolation`).
Whatever stops the run, the kernel is shut down (killed when it is stuck) before it returns.

    executed = execute(notebook, timeout=600, max_output=10_000_000)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async
from nbformat import NotebookNode

from channelkit._constants import (
    NOTEBOOK_KERNEL,
    NOTEBOOK_KERNEL_ENV,
    NOTEBOOK_KERNEL_ENV_PREFIXES,
    NOTEBOOK_PIP_NAMES,
    NOTEBOOK_PLOTLY_RENDERER,
    NOTEBOOK_TRACE_FRAMES,
    REPORT_LOGGER_NAME,
)
from channelkit.reports.notebook_isolation import kernel_command, sealed_parent

# nbclient logs a timeout or a lost output as warnings; with no handler anywhere Python
# would print them to stderr, which --quiet keeps empty. They reach the user's handlers.
_log = logging.getLogger(f"{REPORT_LOGGER_NAME}.notebook")
_log.addHandler(logging.NullHandler())

_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")  # IPython colours its tracebacks
# a frame's line in IPython's traceback: "File /.../style.py:1568, in Styler.to_html(...)"
_FRAME_RE = re.compile(r"^(?:File |Cell In\[)")
_NO_MODULE_RE = re.compile(r"No module named '([\w.]+)'")
# nbclient's "allow this cell to fail" tag: its error is part of the page
_RAISES_TAG = "raises-exception"


class _CellStopped(Exception):
    """A signal between the notebook report's two modules, not an error users catch (the
    one error tree, errors.py, keeps those; `notebook.run_notebook` turns this into one).
    The run stopped in the cell at `index` of the executed notebook: `why` says how, `trace`
    holds the last frames of the traceback of an error.

    try:
        execute(nb, timeout=600, max_output=10_000_000)
    except _CellStopped as stop:
        print(stop.index, stop.why)  # 3 failed: KeyError: 'readers'
    """

    def __init__(self, index: int, why: str, trace: tuple[str, ...] = ()) -> None:
        super().__init__(why)
        self.index = index
        self.why = why
        self.trace = trace


class _KernelFailed(Exception):
    """The kernel did not start, or died outside any cell's fault we could name: `execute`
    raises it with what the kernel said (`except _KernelFailed as exc: print(exc)`)."""


def execute(nb: NotebookNode, *, timeout: float, max_output: int) -> NotebookNode:
    """Run every cell of `nb` (in place) in a new kernel in an empty folder; raise
    `_CellStopped` naming the cell that failed, ran out of time or went past `max_output`
    characters of output."""
    env = {**kernel_environment(os.environ), "PLOTLY_RENDERER": NOTEBOOK_PLOTLY_RENDERER}
    with (
        tempfile.TemporaryDirectory(prefix="channelkit-kernel-") as sockets,
        # not the notebook's folder nor ours: a delivery file or a .env may sit there
        tempfile.TemporaryDirectory(prefix="channelkit-notebook-") as cwd,
        tempfile.TemporaryFile() as kernel_log,
        sealed_parent(),
    ):
        private = Path(sockets) if os.name == "posix" else None  # no Unix sockets on Windows
        client = _ReportClient(nb, timeout=timeout, max_output=max_output, sockets=private)
        try:
            client.execute(cwd=cwd, env=env, stdout=kernel_log, stderr=kernel_log)
        except DeadKernelError:
            if client.running is None:
                raise _KernelFailed(f"the kernel died{_last_line(kernel_log)}") from None
            why = f"stopped the kernel{_last_line(kernel_log)}"
            raise _CellStopped(client.running, why) from None
        except (RuntimeError, TimeoutError, OSError, KeyError) as exc:
            # nbclient's kernel start: no such kernel, no reply in time, no language_info
            raise _KernelFailed(f"{exc}{_last_line(kernel_log)}") from None
    return nb


def kernel_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of `environ` a report kernel inherits: an allow-list, not a deny-list, since a
    credential can sit in a variable of any name (a webhook's `url_env` names its own).

    kernel_environment({"PATH": "/bin", "CHANNELKIT_API_KEY": "ck_..."})  # {"PATH": "/bin"}
    """
    return {
        name: value
        for name, value in environ.items()
        if name.upper() in NOTEBOOK_KERNEL_ENV
        or name.upper().startswith(NOTEBOOK_KERNEL_ENV_PREFIXES)
    }


class _KernelManager(AsyncKernelManager):
    """Starts the kernel as `notebook_isolation.kernel_command` says (in a user namespace
    when this process holds CAP_SYS_PTRACE)."""

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return kernel_command(super().format_kernel_cmd(extra_arguments))


class _ReportClient(NotebookClient):
    def __init__(
        self, nb: NotebookNode, *, timeout: float, max_output: int, sockets: Path | None
    ) -> None:
        super().__init__(
            nb,
            kernel_name=NOTEBOOK_KERNEL,
            kernel_manager_class=_KernelManager,
            startup_timeout=max(1, math.ceil(timeout)),
            timeout_func=self._time_left,
            store_widget_state=False,  # the page cannot draw widgets offline
            record_timing=False,
            log=_log,
        )
        self.sockets = sockets
        self.deadline = time.monotonic() + timeout
        self.timeout_s = timeout
        self.max_output = max_output
        self.spent = 0  # characters of output the cells sent
        self.running: int | None = None  # the cell being run
        self.over_budget = False
        self.interrupting: asyncio.Future[Any] | None = None

    def create_kernel_manager(self) -> Any:
        km = super().create_kernel_manager()
        if self.sockets is not None:
            # Unix sockets in a private folder: TCP ports on 127.0.0.1 would let any local
            # user subscribe to the report's outputs (what the kernel warns about). An
            # absolute path, or each side would resolve it from its own working folder.
            km.transport = "ipc"
            km.ip = str(self.sockets / "kernel")
        return km

    def _time_left(self, cell: NotebookNode) -> int:
        # at least 1 s: nbclient reads 0 as "no limit"
        return max(1, math.ceil(self.deadline - time.monotonic()))

    async def async_execute_cell(
        self,
        cell: NotebookNode,
        cell_index: int,
        execution_count: int | None = None,
        store_history: bool = True,
    ) -> NotebookNode:
        self.running = cell_index
        try:
            done = await super().async_execute_cell(
                cell, cell_index, execution_count, store_history
            )
        except CellTimeoutError:
            self.shutdown_kernel = "immediate"  # it is busy: a polite request would wait
            why = f"was still running at the {self.timeout_s:g} s time limit"
            raise self._stopped(why) from None
        except CellExecutionError as exc:
            raise self._stopped(*_cell_error(cell, exc)) from None
        if self.over_budget:  # it finished before the interruption reached it
            raise self._stopped("")
        if _shown_error(cell) is not None and _RAISES_TAG not in cell.metadata.get("tags", []):
            # `display(x)` whose display raised: the kernel calls the cell a success, but the
            # page would show a traceback where the result should be
            raise self._stopped(*_cell_error(cell, None))
        return done

    def _stopped(self, why: str, trace: tuple[str, ...] = ()) -> _CellStopped:
        assert self.running is not None  # set before a cell runs
        if self.over_budget:
            megabytes = self.max_output / 1_000_000
            why = f"printed past the output limit of {megabytes:g} MB"
        return _CellStopped(self.running, why, trace)

    async def _interrupt(self) -> None:
        # The kernel is killed right after the cell anyway: an interrupt that fails (the
        # kernel already gone) changes nothing, and must not surface as a stray task error.
        with contextlib.suppress(Exception):
            assert self.km is not None  # a cell is running
            await ensure_async(self.km.interrupt_kernel())

    def output(
        self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None, index: int
    ) -> NotebookNode | None:
        if self.over_budget:
            return None  # the cell is being interrupted; what it still sends is dropped
        self.spent += _size(msg["content"])
        if self.spent > self.max_output:
            self.over_budget = True
            self.shutdown_kernel = "immediate"
            # output() is called synchronously from nbclient's message loop: schedule it
            self.interrupting = asyncio.ensure_future(self._interrupt())
            return None
        out: NotebookNode | None = super().output(outs, msg, display_id, index)
        return out


def _shown_error(cell: NotebookNode) -> NotebookNode | None:
    """The cell's last error output (what JupyterLab shows in red), if any."""
    errors = [out for out in cell.get("outputs", []) if out.get("output_type") == "error"]
    return errors[-1] if errors else None


def _cell_error(
    cell: NotebookNode, reply: CellExecutionError | None
) -> tuple[str, tuple[str, ...]]:
    """Why `cell` failed, in one line ("failed: KeyError: 'readers'"), and the last frames of
    its traceback. An error raised while showing the cell's result (a `_repr_html_`, such as
    pandas' Styler needing matplotlib) is not the cell's code raising: the kernel's reply then
    names no exception ("NoneType: None"), and the error is in the cell's outputs. A missing
    module is named with its install line."""
    shown = _shown_error(cell)
    # ipykernel's reply for a result whose display failed: no exception was raised
    showing = reply is None or reply.ename == type(None).__name__
    if shown is not None:
        ename, evalue = str(shown.get("ename", "")), str(shown.get("evalue", ""))
        text = "\n".join(shown.get("traceback", []))
    else:  # a kernel that says it only in its reply
        assert reply is not None  # a cell without an error output failed in its reply
        ename, evalue, text = reply.ename, reply.evalue, reply.traceback
    lines = _ANSI_RE.sub("", text).splitlines()
    error = f"{ename}: {' '.join(evalue.split())}" if evalue else ename
    missing = _NO_MODULE_RE.search("\n".join(lines))
    if missing is not None and "pip install" not in error:
        module = missing.group(1).partition(".")[0]
        package = NOTEBOOK_PIP_NAMES.get(module, module)
        error = error.rstrip(".") + f"; install it with: pip install {package}"
    how = "failed while showing its result" if showing else "failed"
    return f"{how}: {error}", _last_frames([line.strip() for line in lines])


def _last_frames(lines: list[str]) -> tuple[str, ...]:
    """The traceback's last frames, led by the last line of the notebook's own code when the
    error was raised deeper, in a library: where the user's code failed, then what failed."""
    frames = [line for line in lines if _FRAME_RE.match(line)]
    last = frames[-NOTEBOOK_TRACE_FRAMES:]
    mine = [frame for frame in frames if frame.startswith("Cell In[")]
    if mine and mine[-1] not in last:
        last = [mine[-1], *frames[1 - NOTEBOOK_TRACE_FRAMES :]]
    return tuple(last)


def _size(content: dict[str, Any]) -> int:
    """Characters of one output message: a stream's text, a display's data, a traceback."""
    if "text" in content:
        return len(content["text"])
    if "data" in content:
        data = content["data"].values()
        return sum(len(v) if isinstance(v, str) else len(json.dumps(v)) for v in data)
    return sum(len(line) for line in content.get("traceback", []))


def _last_line(log: IO[bytes]) -> str:
    """The kernel's last line of output as ": ...", or "" when it said nothing."""
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - 4096))
    said = _ANSI_RE.sub("", log.read().decode("utf-8", "replace"))
    lines = [line.strip() for line in said.splitlines()]
    kept = [line for line in lines if line]
    return f": {kept[-1]}" if kept else ""

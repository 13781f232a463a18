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
  (`kernel_environment`), never the API key, the SMTP password or a webhook URL.
Whatever stops the run, the kernel is shut down (killed when it is stuck) before it returns.

    executed = execute(notebook, cwd=Path("."), timeout=600, max_output=10_000_000)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async
from nbformat import NotebookNode

from channelkit._constants import (
    NOTEBOOK_KERNEL,
    NOTEBOOK_KERNEL_ENV,
    NOTEBOOK_KERNEL_ENV_PREFIXES,
    NOTEBOOK_PLOTLY_RENDERER,
    REPORT_LOGGER_NAME,
)

# nbclient logs a timeout or a lost output as warnings; with no handler anywhere Python
# would print them to stderr, which --quiet keeps empty. They reach the user's handlers.
_log = logging.getLogger(f"{REPORT_LOGGER_NAME}.notebook")
_log.addHandler(logging.NullHandler())


class _CellStopped(Exception):
    """A signal between the notebook report's two modules, not an error users catch (the
    one error tree, errors.py, keeps those; `notebook.run_notebook` turns this into one).
    The run stopped in the cell at `index` of the executed notebook: `why` says how.

    try:
        execute(nb, cwd=folder, timeout=600, max_output=10_000_000)
    except _CellStopped as stop:
        print(stop.index, stop.why)  # 3 failed: KeyError: 'readers'
    """

    def __init__(self, index: int, why: str) -> None:
        super().__init__(why)
        self.index = index
        self.why = why


class _KernelFailed(Exception):
    """The kernel did not start, or died outside any cell's fault we could name: `execute`
    raises it with what the kernel said (`except _KernelFailed as exc: print(exc)`)."""


def execute(nb: NotebookNode, *, cwd: Path, timeout: float, max_output: int) -> NotebookNode:
    """Run every cell of `nb` (in place) in a new kernel in `cwd`; raise `_CellStopped` naming
    the cell that failed, ran out of time or went past `max_output` characters of output."""
    env = {**kernel_environment(os.environ), "PLOTLY_RENDERER": NOTEBOOK_PLOTLY_RENDERER}
    with (
        tempfile.TemporaryDirectory(prefix="channelkit-kernel-") as sockets,
        tempfile.TemporaryFile() as kernel_log,
    ):
        private = Path(sockets) if os.name == "posix" else None  # no Unix sockets on Windows
        client = _ReportClient(nb, timeout=timeout, max_output=max_output, sockets=private)
        try:
            client.execute(cwd=str(cwd), env=env, stdout=kernel_log, stderr=kernel_log)
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


class _ReportClient(NotebookClient):
    def __init__(
        self, nb: NotebookNode, *, timeout: float, max_output: int, sockets: Path | None
    ) -> None:
        super().__init__(
            nb,
            kernel_name=NOTEBOOK_KERNEL,
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
            error = f"{exc.ename}: {exc.evalue}" if exc.evalue else exc.ename
            raise self._stopped(f"failed: {error}") from None
        if self.over_budget:  # it finished before the interruption reached it
            raise self._stopped("")
        return done

    def _stopped(self, why: str) -> _CellStopped:
        assert self.running is not None  # set before a cell runs
        if self.over_budget:
            megabytes = self.max_output / 1_000_000
            why = f"printed past the output limit of {megabytes:g} MB"
        return _CellStopped(self.running, why)

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
    lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines()]
    said = [line for line in lines if line]
    return f": {said[-1]}" if said else ""

"""What keeps a report kernel away from the secrets of the process that started it (Linux).

The kernel runs the notebook's code as the same user as channelkit, so by default it could
read `/proc/<parent>/environ` (the API key, `CHANNELKIT_SMTP_URL` with its password, webhook
URLs), `/proc/<parent>/fd/*` (the files channelkit holds open) and `/proc/<parent>/cwd/*`.
Those reads are governed by a ptrace access mode check (proc_pid_environ(5): "Permission to
access this file is governed by a ptrace access mode PTRACE_MODE_READ_FSCREDS check; see
ptrace(2)", https://man7.org/linux/man-pages/man5/proc_pid_environ.5.html), which denies a
caller when the target is not "dumpable" and the caller lacks CAP_SYS_PTRACE in the target's
user namespace (ptrace(2), "Ptrace access mode checking"; PR_SET_DUMPABLE(2const): a process
that is not dumpable has the files of its /proc/pid directory owned by root, see proc_pid(5),
https://man7.org/linux/man-pages/man2/PR_SET_DUMPABLE.2const.html). So, while a kernel runs:

- the parent is made not dumpable (`prctl(PR_SET_DUMPABLE, 0)`), and made dumpable again
  after the last kernel stopped;
- a parent holding CAP_SYS_PTRACE (root, as in many containers) would hand it to the
  kernel, which then passes every check: the kernel is started in a user namespace of its own
  (`unshare --user --map-root-user`: the same user for files, no capability outside it).
  Measured on Linux 6.18 as root: dropping CAP_SYS_PTRACE from the kernel's bounding set
  alone still let it read the non-dumpable parent's environ (not its fd or cwd); in a user
  namespace all three are refused. Where no namespace can be made, the run is refused.

The command line (`/proc/<parent>/cmdline`) stays readable by every process, by design:
nothing secret may be passed as an argument (see docs/reports.md).

    with sealed_parent():
        cmd = kernel_command(["python", "-m", "ipykernel_launcher", "-f", "k.json"])
"""

from __future__ import annotations

import contextlib
import ctypes
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from channelkit.errors import ReportError

_PR_GET_DUMPABLE = 3  # <linux/prctl.h>
_PR_SET_DUMPABLE = 4
_CAP_SYS_PTRACE = 19  # <linux/capability.h>
_NAMESPACE = ("--user", "--map-root-user")  # unshare(1): a user namespace, the same user in it

_lock = threading.Lock()
_running = 0  # kernels running under sealed_parent(), in every thread
_dumpable_before = 1


@contextlib.contextmanager
def sealed_parent() -> Iterator[None]:
    """This process not dumpable while the block runs (Linux; elsewhere nothing changes)."""
    global _running, _dumpable_before
    prctl = _prctl()
    if prctl is None:
        yield
        return
    with _lock:
        if _running == 0:
            _dumpable_before = prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
            prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _dumpable_before == 1:
                # dumpable again for debuggers and core dumps, as it was before the run
                prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)


def kernel_command(command: list[str]) -> list[str]:
    """The kernel's command, in a user namespace of its own when this process could trace
    any process (CAP_SYS_PTRACE); `ReportError` when it could and no namespace can be made."""
    if not _can_trace_anyone():
        return command
    unshare = _namespace_tool()
    if unshare is None:
        raise ReportError(
            "channelkit runs with CAP_SYS_PTRACE (as root?), which would let the notebook read "
            "the secrets of every process, and cannot start the kernel in a user namespace "
            "without it (`unshare --user` failed or is missing): run it as an ordinary user"
        )
    return [unshare, *_NAMESPACE, *command]


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    return prctl


def _can_trace_anyone() -> bool:
    """Whether this process's effective capabilities hold CAP_SYS_PTRACE (proc_pid_status(5):
    `CapEff`, a hexadecimal mask)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return False  # no procfs: no /proc/<parent> to read either
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
    return False


@cache
def _namespace_tool() -> str | None:
    """unshare(1), when it can make a user namespace here (one try per process)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    try:
        tried = subprocess.run(
            [unshare, *_NAMESPACE, "true"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return unshare if tried.returncode == 0 else None

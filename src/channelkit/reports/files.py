"""Writing report files all at once or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from channelkit.errors import ReportError


def write_atomic(path: Path, text: str) -> None:
    """Write `text` (UTF-8, `\\n` line ends) to `path`; see `write_atomic_bytes`."""
    write_atomic_bytes(path, text.encode("utf-8"))


def write_atomic_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same directory and a rename.

    A reader (a web server, a mail job) sees the old file or the new one, never half of
    one, and a failure leaves no file behind.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"{path.parent}: cannot create directory: {exc.strerror}") from None
    if path.is_dir():
        raise ReportError(f"{path}: is a directory; give a file name such as {path}/report.html")
    try:
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise ReportError(f"{path.parent}: cannot write there: {exc.strerror}") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a report is meant to be read by others (a web server)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"{path}: cannot write report: {exc.strerror}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise

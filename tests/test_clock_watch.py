"""The clock watch (tests/fixtures/clock.py): a test that reads the wall clock unpinned, in
its process, a subprocess or a fixture, fails without the `calendar` mark, and a mark on a
test that reads nothing is listed, so the calendar run repeats those tests and no others."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import FrameType

import calendar_marks
from travel import clock_watch

ROOT = Path(__file__).resolve().parents[1]

PLANTED = """
import logging
import subprocess
import sys
from datetime import date, datetime

import pytest
import time_machine

HERE = __file__.rsplit("/", 1)[0]
READ_IN_A_SUBPROCESS = f"import sys; sys.path.insert(0, {HERE!r}); import reads; reads.now()"


def test_reads_unmarked():
    assert date.today().year > 2000


@pytest.mark.calendar
def test_reads_marked():
    assert datetime.now().year > 2000


def test_pinned_reads_unmarked():
    with time_machine.travel(datetime(2031, 1, 1, 12), tick=False):
        assert date.today() == date(2031, 1, 1)


@pytest.mark.calendar
def test_marked_reads_nothing():
    assert date(2031, 1, 1).year == 2031


@pytest.mark.calendar(unseen="a clock the watch cannot see")
def test_marked_unseen_reads_nothing():
    assert True


def test_a_subprocess_reads_unmarked():
    subprocess.run([sys.executable, "-c", READ_IN_A_SUBPROCESS], check=True)


@pytest.fixture(scope="module")
def stamped():
    return datetime.now()


def test_reads_through_a_fixture_unmarked(stamped):
    assert stamped


def test_reads_through_the_same_fixture_later_unmarked(stamped):
    assert stamped


def test_logs_unmarked():
    logging.getLogger("planted").warning("a record's time is logging's own")
"""

READS = """
import time


def now():
    return time.time()
"""


def _run_planted(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_planted.py").write_text(PLANTED, encoding="utf-8")
    (tmp_path / "reads.py").write_text(READS, encoding="utf-8")
    path = os.pathsep.join(
        [str(ROOT / "tests"), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    )
    env = {**os.environ, "PYTHONPATH": path, clock_watch.ROOTS_VARIABLE: str(tmp_path)}
    env.pop(clock_watch.WATCH_VARIABLE, None)  # the planted run watches for itself
    command = [
        *(sys.executable, "-m", "pytest", "-p", "fixtures.clock", "-p", "no:cacheprovider"),
        *("--rootdir", str(tmp_path), "-rA", "-W", "ignore::pytest.PytestUnknownMarkWarning"),
        *options,
        str(tmp_path / "test_planted.py"),
    ]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)


def test_the_watch_fails_unmarked_readers_and_lists_marks_on_tests_that_read_nothing(
    tmp_path: Path,
) -> None:
    done = _run_planted(tmp_path)  # "strict", the ini option's default
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    errors = {
        line.split("::")[1].split(" ")[0] for line in out.splitlines() if line.startswith("ERROR ")
    }
    assert errors == {
        "test_reads_unmarked",
        "test_a_subprocess_reads_unmarked",
        "test_reads_through_a_fixture_unmarked",
        "test_reads_through_the_same_fixture_later_unmarked",
    }, out
    read_at = PLANTED.splitlines().index("    assert date.today().year > 2000") + 1
    assert f"test_planted.py:{read_at}." in out  # where it read the clock
    assert "reads.py:6 (subprocess)" in out
    assert "(fixture stamped)" in out
    section = out.split("calendar marks that read no clock", 1)[1].split("\n", 1)[1]
    stale = section.split("\n=", 1)[0]
    assert "test_planted.py::test_marked_reads_nothing" in stale
    assert "test_marked_unseen_reads_nothing" not in stale
    assert "test_reads_marked" not in stale


def test_in_report_mode_the_unmarked_readers_are_listed_and_pass(tmp_path: Path) -> None:
    done = _run_planted(tmp_path, "-o", "clock_watch=report")
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    listed = out.split("clock reads without the calendar mark", 1)[1].split("\n=", 1)[0]
    for name in ("test_reads_unmarked", "test_a_subprocess_reads_unmarked"):
        assert f"test_planted.py::{name}: " in listed
    assert "test_pinned_reads_unmarked" not in listed and "test_logs_unmarked" not in listed


def _frame_in(filename: str) -> FrameType:
    """A frame of code that lives in `filename`, called from here."""
    space: dict[str, object] = {}
    exec(compile("import sys\ndef frame(): return sys._getframe()", filename, "exec"), space)
    made: FrameType = space["frame"]()  # type: ignore[operator]
    return made


def test_a_read_counts_for_the_code_under_test_not_for_a_library_or_logging() -> None:
    here = sys._getframe()
    assert clock_watch.reader(here) == f"tests/test_clock_watch.py:{here.f_lineno}"
    library = str(Path(sysconfig.get_paths()["purelib"]) / "somelib" / "clock.py")
    assert clock_watch.reader(_frame_in(library)) is None  # uvicorn's Date tick, openpyxl...
    # the standard library is seen through: an email Date header made for the code counts
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    assert clock_watch.reader(_frame_in(str(stdlib / "email" / "utils.py"))) is not None
    assert clock_watch.reader(_frame_in(str(stdlib / "logging" / "__init__.py"))) is None


MODULE = """import pytest

pytestmark = pytest.mark.calendar  # every test, by hand


def test_reads():
    pass


@pytest.mark.parametrize("n", [1, 2])
def test_pinned(n):
    pass


def test_not_run():
    pass
"""


def test_the_marks_follow_the_report_test_by_test() -> None:
    report = [
        "tests/m.py::test_reads\t1\t0\tsrc/channelkit/x.py:3",
        "tests/m.py::test_pinned[1]\t1\t0\t",
        "tests/m.py::test_pinned[2]\t1\t0\t",
    ]
    reads = calendar_marks.read_report(report)["tests/m.py"]
    assert reads == {"test_reads": True, "test_pinned": False}
    new = calendar_marks.remark(MODULE, reads)
    assert "pytestmark" not in new
    marked = [line for line in new.splitlines() if line.startswith(("@pytest.mark.c", "def "))]
    assert marked == [
        "@pytest.mark.calendar",
        "def test_reads():",
        "def test_pinned(n):",
        "@pytest.mark.calendar",  # not seen: it keeps the mark the file gave it
        "def test_not_run():",
    ]
    # and once they all read, the file's own mark is true and stays
    assert calendar_marks.remark(MODULE, dict.fromkeys(reads, True)) == MODULE
    # a module a test plants, in a string, keeps its mark
    planting = f"PLANTED = {MODULE!r}\n\n\ndef test_plants():\n    pass\n"
    assert calendar_marks.remark(planting, {"test_plants": False}) == planting

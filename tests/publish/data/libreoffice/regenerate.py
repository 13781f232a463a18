"""Write the fixtures of `tests/publish/test_spreadsheet_programs.py` again (needs Debian's
libreoffice-calc-nogui): channelkit's calendar exports of `POSTS`, and the same files
opened and saved unchanged by LibreOffice (`*-libreoffice.*`), as a user's "Save" does.

    PYTHONPATH=src python tests/publish/data/libreoffice/regenerate.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parents[2])]  # tests/publish, tests

from test_spreadsheet_programs import EXPORT, create_posts  # noqa: E402

from channelkit.cli import main  # noqa: E402
from channelkit.client import Client  # noqa: E402
from channelkit.service import LocalService  # noqa: E402

# LibreOffice's CSV filter: comma, double quote, UTF-8 (76), from line 1.
CSV_FILTER = "44,34,76,1"


def main_() -> None:
    with LocalService() as service, tempfile.TemporaryDirectory() as tmp:
        key = service.create_key(user="admin", team="comms", plan="enterprise")
        with Client(base_url=service.base_url, api_key=key) as client:
            create_posts(client)
        for kind in ("csv", "xlsx"):
            target = HERE / f"calendar.{kind}"
            target.unlink(missing_ok=True)
            args = [*EXPORT, "--base-url", service.base_url, "--api-key", key]
            result = CliRunner().invoke(main, ["calendar", "export", str(target), *args])
            assert result.exit_code == 0, result.output
            converted = Path(tmp) / target.name
            filters = (
                [f"--infilter=CSV:{CSV_FILTER}", f"csv:Text - txt - csv (StarCalc):{CSV_FILTER}"]
                if kind == "csv"
                else ["xlsx:Calc MS Excel 2007 XML"]
            )
            subprocess.run(
                ["soffice", "--headless", *filters[:-1], "--convert-to", filters[-1],
                 "--outdir", tmp, str(target)],
                check=True,
                env={**os.environ, "HOME": tmp},
            )  # fmt: skip
            (HERE / f"calendar-libreoffice.{kind}").write_bytes(converted.read_bytes())


if __name__ == "__main__":
    main_()

"""`channelkit deliver` against a real SMTP server (aiosmtpd) and a real HTTP receiver."""

from __future__ import annotations

import io
import json
import re
import socket
import sqlite3
import threading
import time
import zipfile
from contextlib import closing
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from click.testing import CliRunner, Result

from channelkit._tz import unknown_zone
from channelkit.cli import main
from channelkit.client import Client
from channelkit.reports.deliver.delivery_ledger import record_path
from channelkit.reports.deliver.kinds import WEBHOOK_KINDS
from channelkit.reports.sections import CSV_NAMES
from channelkit.service import LocalService
from channelkit.sync import run_sync
from fixtures.receivers import Receiver, SmtpServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

SECRET = "s3cret-pass"
UNKNOWN_KIND = "x" + "".join(WEBHOOK_KINDS)  # a webhook kind no declaration has
HOOK_SECRET = "T000/B000/XXXXsecretXXXX"


def _toml(tmp_path: Path, text: str) -> Path:
    """A `deliver.toml` holding `text`."""
    path = tmp_path / "deliver.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _smtp_section(smtp: SmtpServer) -> str:
    """The `[smtp]` table of a `deliver.toml` sending to the test's mail server."""
    return (
        f'[smtp]\nurl = "smtp://127.0.0.1:{smtp.mailbox.port}"\n'
        'from = "Comms analytics <analytics@example.com>"\n'
    )


def _config(tmp_path: Path, smtp: SmtpServer, receiver: Receiver, extra: str = "") -> Path:
    return _toml(
        tmp_path,
        f"""
[smtp]
url = "smtp://127.0.0.1:{smtp.mailbox.port}"
from = "Comms analytics <analytics@example.com>"
starttls = false

[[reports]]
name = "weekly-all-hands"
period = "week"
tz = "Europe/Berlin"
email = ["comms-lead@example.com", "ceo@example.com"]
csv = true
webhooks = [
  {{ url = "{receiver.url}/slack/{HOOK_SECRET}", kind = "slack" }},
  {{ url = "{receiver.url}/teams/{HOOK_SECRET}", kind = "teams" }},
]
out_dir = "kept"

[[reports]]
name = "weekly-engineering"
period = "7d"
channels = ["engineering"]
webhooks = [{{ url = "{receiver.url}/json/{HOOK_SECRET}", kind = "json" }}]
{extra}
""",
    )


def run(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["deliver", *map(str, args)], env=env)


def _ledger(db: Path) -> list[tuple[str, str, str]]:
    """The (report, period, target) the delivery record beside `db` has as sent."""
    path = record_path(db)
    if not path.exists():
        return []
    with closing(sqlite3.connect(path)) as con:
        rows = con.execute(
            "SELECT report, period, target FROM delivered WHERE state = 'sent' ORDER BY 1, 2, 3"
        ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def _report_html(message: EmailMessage) -> str:
    """The attached report, unzipped when it came zipped."""
    part = next(message.iter_attachments())
    if part.get_content_type() == "application/zip":
        with zipfile.ZipFile(io.BytesIO(part.get_content())) as archive:
            return archive.read(archive.namelist()[0]).decode("utf-8")
    return str(part.get_content())


@pytest.mark.calendar
def test_first_run_sends_once_per_target_second_run_nothing(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _config(tmp_path, smtp, receiver)
    first = run(config, "--db", small_warehouse)
    assert first.exit_code == 0, first.output
    # one email for the recipient list, one POST per webhook
    assert len(smtp.mailbox.messages) == 1
    recipients, message = smtp.mailbox.messages[0]
    assert sorted(recipients) == ["ceo@example.com", "comms-lead@example.com"]
    assert sorted(path.split("/")[1] for path, _ in receiver.posts) == ["json", "slack", "teams"]
    assert message["Subject"] == "All channels \u00b7 Week 14, 2026 engagement"
    assert message["Date"] and message["Message-ID"].endswith("@example.com>")

    # multipart: text summary, HTML with inline CSS and no script, the report and CSVs
    text = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    assert "Posts: 3" in text.get_content()
    body = html.get_content()
    assert "<script" not in body and "<style" not in body and 'style="' in body
    images = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert len(images) == body.count('src="cid:') and len(images) >= 1
    for image in images:
        assert image["Content-ID"].strip("<>") in body
    names = [part.get_filename() for part in message.iter_attachments()]
    report_name = "weekly-all-hands-2026-03-30_2026-04-05.html"
    # the report as it is when the email stays within 1 MB, zipped otherwise
    assert names[0] in (report_name, report_name + ".zip")
    assert names[1] == "weekly-all-hands-2026-03-30_2026-04-05-data.zip"  # csv = true
    data = next(p for p in message.iter_attachments() if p.get_filename() == names[1])
    with zipfile.ZipFile(io.BytesIO(data.get_content())) as archive:
        assert len([n for n in archive.namelist() if n.endswith(".csv")]) == len(CSV_NAMES)
    assert "data is attached as CSV files, zipped" in text.get_content()
    assert "<!doctype html>" in _report_html(message)
    assert len(message.as_bytes()) <= 1_000_000
    assert (tmp_path / "kept" / report_name).is_file()

    slack = next(body for path, body in receiver.posts if path.startswith("/slack"))
    assert slack["blocks"][0]["text"]["text"].startswith("Engagement report")
    assert report_name in json.dumps(slack)
    teams = next(body for path, body in receiver.posts if path.startswith("/teams"))
    card = teams["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["content"]["type"] == "AdaptiveCard"
    plain = next(body for path, body in receiver.posts if path.startswith("/json"))
    assert plain["report"] == "weekly-engineering" and plain["summary"]
    assert plain["period"]["start"] == "2026-03-30"

    assert len(_ledger(small_warehouse)) == 4
    second = run(config, "--db", small_warehouse)
    assert second.exit_code == 0, second.output
    assert len(smtp.mailbox.messages) == 1 and len(receiver.posts) == 3
    assert "already sent" in second.output


def test_smtp_down_fails_records_nothing_and_the_next_run_sends_once(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _config(tmp_path, smtp, receiver)
    smtp.stop()
    down = run(config, "--db", small_warehouse)
    assert down.exit_code == 1
    failures = [line for line in down.stderr.splitlines() if ": failed:" in line]
    assert len(failures) == 1
    assert failures[0].startswith("weekly-all-hands: email comms-lead@example.com")
    assert f"smtp://127.0.0.1:{smtp.mailbox.port}" in failures[0]
    assert not any(target.startswith("email:") for _, _, target in _ledger(small_warehouse))
    assert len(receiver.posts) == 3  # the webhooks went out and are recorded

    smtp.start()
    back = run(config, "--db", small_warehouse)
    assert back.exit_code == 0, back.output
    assert len(smtp.mailbox.messages) == 1
    assert len(receiver.posts) == 3  # not resent
    again = run(config, "--db", small_warehouse)
    assert again.exit_code == 0 and len(smtp.mailbox.messages) == 1


def test_webhook_500_is_retried_and_secrets_never_show(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _config(tmp_path, smtp, receiver)
    env = {"CHANNELKIT_SMTP_URL": f"smtp://ann:{SECRET}@127.0.0.1:{smtp.mailbox.port}"}
    receiver.status = 500
    failed = run(config, "--db", small_warehouse, env=env)
    assert failed.exit_code == 1
    lines = failed.stderr.splitlines()
    # the mail too: aiosmtpd offers no login without TLS, so the server refuses AUTH
    assert [line.split(": failed")[0] for line in lines if ": failed" in line] == [
        "weekly-all-hands: email comms-lead@example.com, ceo@example.com",
        "weekly-all-hands: webhooks[0] (slack webhook http://127.0.0.1/\u2026)",
        "weekly-all-hands: webhooks[1] (teams webhook http://127.0.0.1/\u2026)",
        "weekly-engineering: webhooks[0] (json webhook http://127.0.0.1/\u2026)",
    ]
    assert "answered HTTP 500" in failed.stderr
    everything = failed.output + "".join(map(str, _ledger(small_warehouse)))
    assert SECRET not in everything and HOOK_SECRET not in everything
    assert len(smtp.mailbox.messages) == 0
    assert "refused the login (535)" in failed.stderr

    receiver.status = 200
    retried = run(config, "--db", small_warehouse)  # without the password in the env
    assert retried.exit_code == 0, retried.output
    assert len(receiver.posts) == 3 and len(smtp.mailbox.messages) == 1


def test_dry_run_sends_nothing_and_force_resends_one_report(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _config(tmp_path, smtp, receiver)
    dry = run(config, "--db", small_warehouse, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.count("would send") == 4
    assert not smtp.mailbox.messages and not receiver.posts
    assert _ledger(small_warehouse) == []

    assert run(config, "--db", small_warehouse).exit_code == 0
    forced = run(config, "--db", small_warehouse, "--force", "weekly-engineering")
    assert forced.exit_code == 0, forced.output
    assert len(receiver.posts) == 4 and len(smtp.mailbox.messages) == 1
    unknown = run(config, "--db", small_warehouse, "--force", "nope")
    assert unknown.exit_code == 2 and "no report is named 'nope'" in unknown.stderr


def test_a_send_a_killed_run_left_unknown_is_said_and_sent_again_only_on_request(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    """A run killed between a message and its record leaves the target `sending`: later
    runs say "unknown" (exit 1) and send nothing until `--unknown resend` or `sent`."""
    config = _config(tmp_path, smtp, receiver)
    assert run(config, "--db", small_warehouse).exit_code == 0
    with closing(sqlite3.connect(record_path(small_warehouse))) as con, con:
        # as a killed run leaves it: claimed, never settled (its process gone)
        marked = con.execute(
            "UPDATE delivered SET state = 'sending', pid = NULL WHERE report = 'weekly-engineering'"
        ).rowcount
    assert marked == 1
    posts = len(receiver.posts)
    for _ in range(2):
        said = run(config, "--db", small_warehouse)
        assert said.exit_code == 1 and len(receiver.posts) == posts, said.output
        assert "weekly-engineering: webhooks[0] (json webhook http://127.0.0.1/…): unknown: " in (
            said.stderr
        )
        assert "check whether it arrived" in said.stderr and "--unknown resend" in said.stderr
    dry = run(config, "--db", small_warehouse, "--dry-run", "--unknown", "resend")
    assert dry.exit_code == 0 and "would send" in dry.stdout and len(receiver.posts) == posts
    resent = run(config, "--db", small_warehouse, "--unknown", "resend")
    assert resent.exit_code == 0, resent.output
    assert len(receiver.posts) == posts + 1 and resent.stdout.count(": sent: ") == 1
    after = run(config, "--db", small_warehouse)
    assert after.exit_code == 0 and "unknown" not in after.output
    assert len(receiver.posts) == posts + 1


def test_stale_data_sends_nothing_and_says_why(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _config(tmp_path, smtp, receiver)
    stale = run(config, "--db", small_warehouse, "--max-age", "26h")
    assert stale.exit_code == 1
    assert stale.stderr.count("not sent: data is stale") == 2
    assert not smtp.mailbox.messages and not receiver.posts


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[[reports]]\nname = 'x'\nperiod = 'whenever'\nemail = ['a@example.com']",
            "reports[0].period: 'whenever' is not a period",
        ),
        ("[[reports]]\nname = 'x'\nperiod = 'week'", "nobody would receive it"),
        (
            "[[reports]]\nname = 'x'\nperiod = 'week'\nemail = ['a@example.com']",
            "smtp.url: reports send email",
        ),
        (
            "[[reports]]\nname = 'a/b'\nperiod = 'week'\nemail = ['a@example.com']",
            "reports[0].name: 'a/b'",
        ),
        (
            "[[reports]]\nname = 'x'\nperiod = 'week'\nemail = ['not an address']",
            "reports[0].email: 'not an address' is not an email address",
        ),
        (
            "[[reports]]\nname = 'x'\nperiod = 'week'\n"
            f"webhooks = [{{ url = 'https://h.example.com/x', kind = '{UNKNOWN_KIND}' }}]",
            f"webhooks[0].kind: '{UNKNOWN_KIND}': expected one of {', '.join(WEBHOOK_KINDS)}",
        ),
        ("[[reports]\n", "not valid TOML"),
    ],
)
def test_config_mistakes_exit_2_naming_the_key(
    small_warehouse: Path, tmp_path: Path, toml: str, message: str
) -> None:
    config = _toml(tmp_path, toml)
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    ("value", "shown"),
    [("0", "0"), ("-5", "-5"), ("'ten'", "'ten'"), ("true", "True"), ("inf", "inf")],
)
def test_a_notebook_timeout_that_is_not_seconds_is_refused_naming_the_key(
    small_warehouse: Path, tmp_path: Path, value: str, shown: str
) -> None:
    (tmp_path / "mine.ipynb").write_text("{}", encoding="utf-8")  # never run: refused first
    config = _toml(
        tmp_path,
        "[[reports]]\nname = 'x'\nperiod = 'week'\nnotebook = 'mine.ipynb'\n"
        f"webhooks = [{{ url = 'https://h.example.com/x' }}]\ntimeout = {value}\n",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2, result.output
    assert f"deliver.toml: reports[0].timeout: {shown}: expected seconds above 0" in result.stderr
    assert _ledger(small_warehouse) == []


def test_a_jobs_zone_is_resolved_where_the_file_is_read(tmp_path: Path) -> None:
    from channelkit.reports.deliver.config import load_config

    hook = "webhooks = [{ url = 'https://h.example.com/x' }]"
    config = _toml(
        tmp_path,
        f"[[reports]]\nname = 'a'\nperiod = 'week'\ntz = ' europe/berlin '\n{hook}\n"
        f"[[reports]]\nname = 'b'\nperiod = 'week'\n{hook}\n",
    )
    jobs = load_config(config, {}).reports
    # a ZoneInfo below the file: what runs the job never looks the name up again
    assert [job.tz for job in jobs] == [ZoneInfo("Europe/Berlin"), ZoneInfo("UTC")]


def test_a_bad_zone_is_refused_at_reading_naming_the_file_and_the_job(
    small_warehouse: Path, tmp_path: Path, receiver: Receiver
) -> None:
    hook = f"webhooks = [{{ url = '{receiver.url}/json/x', kind = 'json' }}]"
    config = _toml(
        tmp_path,
        f"[[reports]]\nname = 'a'\nperiod = 'week'\n{hook}\n"
        f"[[reports]]\nname = 'b'\nperiod = 'week'\ntz = 'Europ/Berlin'\n{hook}\n",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    said = " ".join(result.stderr.split())
    assert f"Error: {config}: reports[1].tz: {unknown_zone('Europ/Berlin')}" in said
    # refused before any job ran: the good first one sent nothing either
    assert receiver.posts == [] and _ledger(small_warehouse) == []


def test_a_period_not_over_yet_is_not_due_and_not_an_error(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _toml(
        tmp_path,
        f"""
[[reports]]
name = "april"
period = "2026-04"
webhooks = [{{ url = "{receiver.url}/json/x", kind = "json" }}]
""",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 0, result.output
    assert "april: not due yet: April 2026 to date is not complete yet" in result.stdout
    assert receiver.posts == [] and _ledger(small_warehouse) == []


def test_settings_never_show_their_secrets(tmp_path: Path) -> None:
    from channelkit.reports.deliver.config import load_config

    config = _toml(
        tmp_path,
        """
[smtp]
from = "analytics@example.com"

[[reports]]
name = "weekly"
period = "week"
email = ["a@example.com"]
webhooks = [{ url_env = "HOOK", kind = "slack" }]
""",
    )
    env = {
        "CHANNELKIT_SMTP_URL": f"smtps://ann:{SECRET}@mail.example.com",
        "HOOK": (f"https://hooks.example.com/{HOOK_SECRET}"),
    }
    settings = load_config(config, env)
    assert settings.smtp is not None
    assert (settings.smtp.host, settings.smtp.port, settings.smtp.ssl) == (
        "mail.example.com",
        465,
        True,
    )
    assert settings.smtp.password == SECRET  # kept for the login, shown nowhere:
    hook = settings.reports[0].webhooks[0]
    shown = repr(settings) + settings.smtp.shown + hook.shown + hook.target
    assert SECRET not in shown and HOOK_SECRET not in shown
    assert hook.shown == "webhooks[0] (slack webhook https://hooks.example.com/\u2026)"


def test_a_report_that_cannot_be_made_does_not_stop_the_others(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _toml(
        tmp_path,
        f"""
[[reports]]
name = "marketing"
period = "week"
channels = ["marketing"]
webhooks = [{{ url = "{receiver.url}/json/a", kind = "json" }}]

[[reports]]
name = "engineering"
period = "week"
channels = ["engineering"]
webhooks = [{{ url = "{receiver.url}/json/b", kind = "json" }}]
""",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 1
    assert (
        "marketing: webhooks[0] (json webhook http://127.0.0.1/\u2026): failed: channel: no channel"
        in result.stderr
    )
    assert [path for path, _ in receiver.posts] == ["/json/b"]


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            "[[reports]]\nname = 'x'\nperiod = 'week'\nemial = ['a@example.com']",
            "deliver.toml: reports[0].emial: unknown key; did you mean 'email'?",
        ),
        ("[smpt]\n", "deliver.toml: smpt: unknown section; did you mean 'smtp'?"),
        (
            "[[reports]]\nname = 'x'\nperiod = 'week'\n"
            "webhooks = [{ url = 'https://h.example.com/x', knd = 'slack' }]",
            "reports[0].webhooks[0].knd: unknown key; did you mean 'kind'?",
        ),
    ],
)
def test_config_mistakes_name_the_file_not_a_flag_and_suggest_the_key(
    small_warehouse: Path, tmp_path: Path, toml: str, message: str
) -> None:
    config = _toml(tmp_path, toml)
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2
    error = result.stderr.splitlines()[-1]
    assert error.startswith(f"Error: {config}: ") and "--" not in error
    assert message in error


def test_periods_are_listed_once(small_warehouse: Path, tmp_path: Path) -> None:
    config = _toml(
        tmp_path, "[[reports]]\nname = 'x'\nperiod = 'whenever'\nemail = ['a@example.com']"
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2
    assert result.stderr.count("'last month'") == 1 and "last month," not in result.stderr


def test_two_webhooks_of_one_kind_on_one_host_are_told_apart(
    small_warehouse: Path, tmp_path: Path, receiver: Receiver
) -> None:
    config = _toml(
        tmp_path,
        f"""
[[reports]]
name = "weekly"
period = "week"
webhooks = [
  {{ url = "{receiver.url}/a", kind = "slack", name = "comms-channel" }},
  {{ url = "{receiver.url}/b", kind = "slack" }},
]
""",
    )
    receiver.status = 500
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 1
    labels = [line.split(": failed")[0] for line in result.stderr.splitlines() if "failed" in line]
    assert labels == [
        "weekly: comms-channel (slack webhook http://127.0.0.1/\u2026)",
        "weekly: webhooks[1] (slack webhook http://127.0.0.1/\u2026)",
    ]


def test_a_webhook_trickling_its_answer_is_cut_at_the_deadline() -> None:
    """One byte every 0.5 s never trips a per-read timeout; the whole deadline stops it."""
    from channelkit.errors import DeliveryError
    from channelkit.reports.deliver.config import Webhook
    from channelkit.reports.deliver.transport import post_webhook

    stop = threading.Event()

    class Trickle(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" * 100:
                    if stop.wait(0.5):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except OSError:  # the client hung up: that is the point
                return

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(DeliveryError, match=r"no complete answer within 2 s"):
            post_webhook(
                Webhook(f"http://127.0.0.1:{server.server_address[1]}/x", "json"), {}, deadline=2
            )
        # the trickle lasts ~25 s; per-read timeouts alone would wait for all of it
        assert time.monotonic() - started < 15
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_an_smtp_server_that_stalls_is_cut_at_the_deadline() -> None:
    from channelkit.errors import DeliveryError
    from channelkit.reports.deliver.config import SmtpSettings
    from channelkit.reports.deliver.transport import send_email

    # accepts the connection and never greets: every read waits for the per-read timeout
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    settings = SmtpSettings("127.0.0.1", port, sender="a@example.com", timeout=30.0)
    started = time.monotonic()
    try:
        with pytest.raises(DeliveryError, match=r"did not take the email within 1\.5 s"):
            send_email(settings, EmailMessage(), deadline=1.5)
        assert time.monotonic() - started < 15
    finally:
        listener.close()


def test_a_notebook_report_is_sent_once_like_the_built_in_one(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver, monkeypatch: Any
) -> None:
    from channelkit.reports import notebook as notebook_module

    limits: list[float] = []
    real_run = notebook_module.run_notebook

    def recording_run(*args: Any, **kwargs: Any) -> Any:  # the real run, its limit noted
        limits.append(kwargs["timeout"])
        return real_run(*args, **kwargs)

    monkeypatch.setattr(notebook_module, "run_notebook", recording_run)
    notebook = Path(__file__).resolve().parents[3] / "notebooks" / "04-my-report.ipynb"
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "mine.ipynb").write_bytes(notebook.read_bytes())
    config = _toml(
        tmp_path,
        f"""
[smtp]
url = "smtp://127.0.0.1:{smtp.mailbox.port}"
from = "analytics@example.com"

[[reports]]
name = "mine"
period = "week"
tz = "Europe/Berlin"
notebook = "nb/mine.ipynb"
timeout = 450
email = ["comms-lead@example.com"]
webhooks = [{{ url_env = "MINE_HOOK_URL", kind = "json" }}]
""",
    )
    # a file that runs a notebook takes the webhook's URL from the environment only
    hook = {"MINE_HOOK_URL": f"{receiver.url}/json/x"}
    first = run(config, "--db", small_warehouse, env=hook)
    assert first.exit_code == 0, first.output
    assert limits == [450]  # the entry's `timeout`, not NOTEBOOK_TIMEOUT_S
    assert len(smtp.mailbox.messages) == 1 and len(receiver.posts) == 1
    _, message = smtp.mailbox.messages[0]
    assert message["Subject"] == "All channels \u00b7 Week 14, 2026 engagement"
    assert message["Date"] and message["Message-ID"]
    page = _report_html(message)
    readers = (
        __import__("channelkit").Warehouse(small_warehouse)
        .kpis(period="week", tz="Europe/Berlin").set_index("metric").loc["readers", "value"]
    )  # fmt: skip
    assert f"{int(readers):,} readers" in page and "ck.Warehouse" not in page
    assert receiver.posts[0][1]["title"] == "My monthly report \u00b7 Week 14, 2026"
    assert sorted(t for _, _, t in _ledger(small_warehouse))[0].startswith("email:")

    second = run(config, "--db", small_warehouse, env=hook)
    assert second.exit_code == 0, second.output
    assert second.stdout.count("already sent") == 2
    assert len(smtp.mailbox.messages) == 1 and len(receiver.posts) == 1


def test_a_notebook_that_fails_showing_a_result_mails_its_cause_and_where(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer
) -> None:
    import importlib.util

    # pandas' Styler shades with matplotlib, which the notebook extra does not carry
    assert importlib.util.find_spec("matplotlib") is None, "this test needs it missing"
    cells = [
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": 'db = ""'},
        {
            "cell_type": "code",
            "metadata": {},
            "source": "import channelkit as ck\n"
            "ck.Warehouse(db).kpis(period=period)[['value']].style.background_gradient()",
        },
    ]
    for cell in cells:
        cell.update(outputs=[], execution_count=None)
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    (tmp_path / "shaded.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    config = _toml(
        tmp_path,
        _smtp_section(smtp)
        + """
[[reports]]
name = "shaded"
period = "week"
notebook = "shaded.ipynb"
email = ["comms-lead@example.com"]
on_failure = { email = ["ops@example.com"] }
""",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 1
    cause = (
        "shaded.ipynb: cell 2 (`import channelkit as ck`) failed while showing its result: "
        "ImportError: `Import matplotlib` failed. Styler.background_gradient requires matplotlib"
    )
    # the run's one line per failure names the cause, not "NoneType: None"
    line = result.stderr.splitlines()[-1]  # after the progress line
    assert line.startswith(f"shaded: email comms-lead@example.com: failed: {cause}"), line
    assert line.endswith("; install it with: pip install matplotlib")
    (recipients, notice), *_ = smtp.mailbox.messages
    assert recipients == ["ops@example.com"]
    text = notice.get_content()
    assert cause in text and "install it with: pip install matplotlib" in text
    # and where: the traceback's last frames, under the one line
    frames = re.findall(r"^  File .*$", text, flags=re.M)
    assert len(frames) == 3 and "import_optional_dependency" in frames[-1], text


# Each chart image's displayed width, its pixel width, and the email's width on screen.
_IMAGES = """() => [...document.images].map((img) => ({
    shown: img.getBoundingClientRect().width, pixels: img.naturalWidth,
})).concat([{ page: document.documentElement.scrollWidth }])"""


@pytest.mark.slow
@pytest.mark.browser
def test_the_demo_weeks_and_months_emails_fit_an_inbox_and_a_phone(
    demo_service: LocalService, tmp_path: Path, smtp: SmtpServer, browser: Browser
) -> None:
    from channelkit._constants import REPORT_EMAIL_CHART_SCALE
    from channelkit.reports.deliver.email_charts import email_charts, for_email
    from channelkit.reports.generate import build_report

    db = tmp_path / "demo.duckdb"
    with Client(base_url=demo_service.base_url, api_key=demo_service.demo_keys["analyst"]) as c:
        run_sync(c, db, progress=False)
    config = _toml(
        tmp_path,
        _smtp_section(smtp)
        + """
[[reports]]
name = "monthly"
period = "month"
tz = "Europe/Berlin"
email = ["comms-lead@example.com"]

[[reports]]
name = "weekly"
period = "week"
tz = "Europe/Berlin"
channels = ["all-hands"]
email = ["comms-lead@example.com"]
""",
    )
    result = run(config, "--db", db)
    assert result.exit_code == 0, result.output
    monthly, weekly = (message for _, message in smtp.mailbox.messages)
    assert re.fullmatch(r"All channels \u00b7 [A-Z][a-z]+ 20\d\d engagement", monthly["Subject"])
    # the channel by its name, in the subject and the heading
    assert re.fullmatch(r"All Hands \u00b7 Week \d+, 20\d\d engagement", weekly["Subject"])
    html = weekly.get_body(preferencelist=("html",))
    assert html is not None and "\u00b7 All Hands</h1>" in html.get_content()
    for message in (monthly, weekly):
        assert len(message.as_bytes()) <= 1_000_000
    # the week's interactive report goes with it, zipped; a month's may not fit, and says so
    assert "<!doctype html>" in _report_html(weekly)
    message = monthly
    assert message["Date"] and re.fullmatch(r"<[^@>]+@example\.com>", message["Message-ID"])
    assert not any(p.get_filename().endswith(".csv") for p in message.iter_attachments())

    html = message.get_body(preferencelist=("html",))
    text = message.get_body(preferencelist=("plain",))
    assert html is not None and text is not None
    body = html.get_content()
    alts = re.findall(r'<img [^>]*alt="([^"]*)"', body)
    assert len(alts) >= 4 and len(alts) == body.count('src="cid:')
    for alt in alts:
        # one sentence naming its key number, and no table the email does not have
        assert "table" not in alt.lower() and re.search(r"\d", alt)
        assert alt.endswith(".") and ". " not in alt
    # one minus sign: no hyphen-minus before a number outside dates and names
    for words in (text.get_content(), re.sub(r"<[^>]+>", " ", body)):
        assert not re.search(r"(?<![\w.\-\u2212])-\d", words)

    # On a phone: the smallest text drawn on a chart (the figures as the email draws them),
    # times the image's displayed width over the width it was drawn for, is >= 12 px.
    report = build_report(db, period="month", tz="Europe/Berlin")
    drawn = [for_email(chart.figure) for chart in email_charts(report.page.charts)]
    assert len(drawn) == len(alts)
    for name, message in (("monthly", monthly), ("weekly", weekly)):
        html = message.get_body(preferencelist=("html",))
        assert html is not None
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_content(_inline_images(message, html.get_content()))
        *images, width = page.evaluate(_IMAGES)
        shot = tmp_path / f"{name}-email-390.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"--- screenshot: {shot}")
        page.close()
        assert width["page"] <= 390  # nothing wider than the phone
        for image, figure in zip(images, drawn, strict=False):
            drawn_width = image["pixels"] / REPORT_EMAIL_CHART_SCALE
            assert drawn_width == figure.layout.width
            shown = _smallest_font(figure.to_plotly_json()) * image["shown"] / drawn_width
            assert shown >= 12, (image, shown)


def _inline_images(message: EmailMessage, html: str) -> str:
    """The email's HTML with each `cid:` image as a data URL, as a mail client shows it."""
    import base64

    for part in message.walk():
        if part.get_content_type() == "image/png":
            cid = str(part["Content-ID"]).strip("<>")
            data = base64.b64encode(part.get_payload(decode=True)).decode("ascii")
            html = html.replace(f"cid:{cid}", f"data:image/png;base64,{data}")
    return html


def _smallest_font(spec: Any, inherited: float = 12.0) -> float:
    """The smallest font size anywhere in a figure's JSON: every `*font` and the layout's
    (which unset fonts inherit; plotly's own default is 12)."""
    sizes = []
    if isinstance(spec, dict):
        layout_font = spec.get("layout", {}).get("font", {}).get("size")
        if layout_font is not None:
            inherited = float(layout_font)
            sizes.append(inherited)
        for key, value in spec.items():
            if isinstance(value, dict) and key.endswith("font") and "size" in value:
                sizes.append(float(value["size"]))
            sizes.append(_smallest_font(value, inherited))
    elif isinstance(spec, list):
        sizes += [_smallest_font(item, inherited) for item in spec]
    return min(sizes, default=inherited)


def test_a_report_too_large_even_zipped_is_left_out_and_the_email_says_where(
    small_warehouse: Path,
    tmp_path: Path,
    smtp: SmtpServer,
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from channelkit.reports.deliver.kinds import EMAIL

    monkeypatch.setattr(EMAIL, "max_bytes", 400_000)
    config = _config(tmp_path, smtp, receiver)
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 0, result.output
    _, message = smtp.mailbox.messages[0]
    assert len(message.as_bytes()) <= 400_000
    names = [part.get_filename() for part in message.iter_attachments()]
    assert names == ["weekly-all-hands-2026-03-30_2026-04-05-data.zip"]  # only the CSVs
    text = message.get_body(preferencelist=("plain",))
    assert text is not None
    kept = tmp_path / "kept" / "weekly-all-hands-2026-03-30_2026-04-05.html"
    assert f"is too large for email. It is kept as {kept}." in text.get_content()
    assert kept.is_file()


def test_without_out_dir_a_report_too_large_is_kept_beside_the_warehouse_and_said_where(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from channelkit.reports.deliver.kinds import EMAIL

    monkeypatch.setattr(EMAIL, "max_bytes", 400_000)
    db = tmp_path / "data" / "warehouse.duckdb"
    db.parent.mkdir()
    shutil.copy(small_warehouse, db)
    config = _toml(
        tmp_path,
        _smtp_section(smtp)
        + '[[reports]]\nname = "weekly"\nperiod = "week"\nemail = ["comms-lead@example.com"]\n',
    )
    result = run(config, "--db", db)
    assert result.exit_code == 0, result.output
    kept = tmp_path / "data" / "delivered-reports" / "weekly-2026-03-30_2026-04-05.html"
    # the page that was shown is kept, whole, and both the email and the run say where
    assert kept.read_text(encoding="utf-8").startswith("<!doctype html>")
    (_, message), *_ = smtp.mailbox.messages
    assert list(message.iter_attachments()) == []
    text = message.get_body(preferencelist=("plain",))
    assert text is not None
    assert f"is too large for email. It is kept as {kept}." in text.get_content()
    assert result.stdout.splitlines() == [
        "weekly: email comms-lead@example.com: sent: Week 14, 2026; the report, too large "
        f"for email, is in {kept}"
    ]
    # an email that carries it keeps nothing anywhere
    kept.unlink()
    monkeypatch.setattr(EMAIL, "max_bytes", 5_000_000)
    again = run(config, "--db", db, "--force", "weekly")
    assert again.stdout.splitlines() == [
        "weekly: email comms-lead@example.com: sent: Week 14, 2026"
    ]
    assert list(kept.parent.iterdir()) == []


# --- when = "news" and failure notices -----------------------------------------------------


# The steady workspace as seeded, planted and synced at this instant, whatever the day the
# suite runs (the seed anchors its posts on the service's clock).
NEWS_SYNCED_AT = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def steady_with_a_drop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The steady workspace (engagement that repeats week after week), its `people` channel
    read half as much over the last 14 days: one channel with news, two without."""
    import sqlite3

    folder = tmp_path_factory.mktemp("steady-news")
    service_db = folder / "service.sqlite3"
    db = folder / "steady.duckdb"
    with time_machine.travel(NEWS_SYNCED_AT, tick=True):
        with LocalService(db=str(service_db), seed="steady", rate_window=1.0) as seeded:
            key = seeded.demo_keys["admin"]  # seeded, then planted while no service holds it
        con = sqlite3.connect(service_db)
        with con:
            planted = con.execute(
                "UPDATE post_daily SET views = views / 2, unique_viewers = unique_viewers / 2 "
                "WHERE post_seq IN (SELECT p.seq FROM posts p JOIN channels c "
                "ON c.seq = p.channel_seq WHERE c.slug = 'people' "
                "AND p.published_at >= ?)",
                ((NEWS_SYNCED_AT - timedelta(days=14)).timestamp(),),
            ).rowcount
        con.close()
        assert planted > 1000
        with LocalService(db=str(service_db), rate_window=1.0) as svc:
            with Client(base_url=svc.base_url, api_key=key) as client:
                # ten weeks: the week and its 8 previous ones give the usual range
                since = NEWS_SYNCED_AT.date() - timedelta(days=70)
                run_sync(client, db, progress=False, since=since)
    return db


@pytest.mark.calendar
@pytest.mark.slow
def test_news_only_sends_nothing_on_a_steady_week_and_the_drop_once(
    steady_with_a_drop: Path, tmp_path: Path, receiver: Receiver
) -> None:
    config = _toml(
        tmp_path,
        "".join(
            f"""
[[reports]]
name = "{channel}"
period = "week"
channels = ["{channel}"]
when = "news"
webhooks = [{{ url = "{receiver.url}/json/{channel}", kind = "json" }}]
"""
            for channel in ("all-hands", "engineering", "people")
        ),
    )
    first = run(config, "--db", steady_with_a_drop)
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    for steady in ("all-hands", "engineering"):
        said = [line for line in lines if line.startswith(f"{steady}: ")]
        assert len(said) == 1, lines  # one line: why nothing was sent
        assert re.fullmatch(
            rf"{steady}: no news: Week \d+, 20\d\d: read rate and readers are within their "
            "usual range and no post is far below its channel at the same age",
            said[0],
        )
    news = next(line for line in lines if line.startswith("people: news: "))
    assert "read rate" in news and "is below its usual range" in news
    assert [path for path, _ in receiver.posts] == ["/json/people"]
    assert receiver.posts[0][1]["title"].endswith("\u00b7 People")  # the name, not the slug
    ledger = _ledger(steady_with_a_drop)
    assert sorted(target for report, _, target in ledger if report != "people") == [
        "news:none",
        "news:none",
    ]

    again = run(config, "--db", steady_with_a_drop)
    assert again.exit_code == 0, again.output
    assert len(receiver.posts) == 1  # the drop went out once
    hook = "webhooks[0] (json webhook http://127.0.0.1/\u2026)"
    assert f"people: {hook}: already sent" in again.stdout
    assert "all-hands: no news: Week" in again.stdout and "(as at the last check)" in again.stdout
    assert len(_ledger(steady_with_a_drop)) == len(ledger)


@pytest.mark.calendar
def test_a_build_failure_sends_one_notice_per_period(
    small_warehouse: Path, tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = _toml(
        tmp_path,
        _smtp_section(smtp)
        + f"""
[[reports]]
name = "marketing"
period = "week"
channels = ["marketing"]
webhooks = [{{ url = "{receiver.url}/json/report", kind = "json" }}]
on_failure = {{ email = ["ops@example.com"] }}

[[reports]]
name = "marketing-chat"
period = "week"
channels = ["marketing"]
webhooks = [{{ url = "{receiver.url}/json/report2", kind = "json" }}]
on_failure = {{ url = "{receiver.url}/slack/{HOOK_SECRET}", kind = "slack" }}
""",
    )
    for attempt in range(2):
        result = run(config, "--db", small_warehouse)
        assert result.exit_code == 1
        assert "marketing: webhooks[0] (json webhook http://127.0.0.1/\u2026): failed:" in (
            result.stderr
        )
        shown = "marketing: failure notice to email ops@example.com"
        assert f"{shown}: {'sent' if attempt == 0 else 'already sent'}: Week 14, 2026" in (
            result.stdout
        )
        assert HOOK_SECRET not in result.output
    assert len(smtp.mailbox.messages) == 1  # once per period, however many runs fail
    recipients, notice = smtp.mailbox.messages[0]
    assert recipients == ["ops@example.com"]
    assert notice["Subject"] == "Not sent: marketing \u00b7 Week 14, 2026 engagement"
    text = notice.get_content()
    assert "'marketing' for Week 14, 2026 could not be built" in text and "no channel" in text
    assert [path for path, _ in receiver.posts] == [f"/slack/{HOOK_SECRET}"]
    assert "could not be built" in receiver.posts[0][1]["text"]
    failures = [target for _, _, target in _ledger(small_warehouse) if target.startswith("fail")]
    assert len(failures) == 2


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("when = 'sometimes'", "reports[0].when: 'sometimes': expected 'always' or 'news'"),
        ("on_failure = 'ops@example.com'", "reports[0].on_failure: expected { email = [...] }"),
        ("on_failure = { email = ['not an address'] }", "'not an address' is not an email"),
        ("on_failure = { url = 'ftp://x' }", "reports[0].on_failure.url: expected an http(s)"),
        ("timeout = 60", "reports[0].timeout: limits a notebook run; give notebook"),
    ],
)
def test_when_and_on_failure_mistakes_name_the_key(
    small_warehouse: Path, tmp_path: Path, entry: str, message: str
) -> None:
    config = _toml(
        tmp_path,
        "[[reports]]\nname = 'x'\nperiod = 'week'\n"
        f"webhooks = [{{ url = 'https://h.example.com/x' }}]\n{entry}\n",
    )
    result = run(config, "--db", small_warehouse)
    assert result.exit_code == 2 and message in result.output, result.output

"""A report notebook's kernel holds no secret: a cell printing `os.environ` during
`channelkit report --notebook` and `channelkit deliver` (a real aiosmtpd server that takes the
SMTP password, a real webhook receiver) shows none of them, on the page or in the email; nor
does a cell reading the parent's environment, command line, the files it names, its working
folder and its open files through /proc (issue 45.6), run by a real `channelkit` process. A
delivery file that runs a notebook holds no secret itself."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.reports.notebook_kernel import kernel_environment
from fixtures.notebooks import write_notebook

# the period "week" and the zone are read from the warehouse's days
pytestmark = pytest.mark.slow

API_KEY = "ck_live_notebook_secret_key_1234567890"
SMTP_PASSWORD = "smtp-pass-9f8e7d"
HOOK_PATH = "/hooks/T000-B000-webhooksecret42"
AWS_SECRET = "aws-secret-access-key-abcdef"
JUPYTER_TOKEN = "jupyter-token-31337"
SECRETS = (API_KEY, SMTP_PASSWORD, "webhooksecret42", AWS_SECRET, JUPYTER_TOKEN)

_PRINT_ENV = "import os\nfor name, value in sorted(os.environ.items()):\n    print(name, value)"
_PRINT_PARAMETERS = "print('warehouse:', db, '| period:', period, '| zone:', tz)"


def _notebook(path: Path) -> Path:
    """A notebook that prints its environment and the parameters it was given."""
    return write_notebook(
        path, _PRINT_ENV, _PRINT_PARAMETERS, parameters='db = ""\nperiod = "week"\ntz = "UTC"'
    )


@pytest.fixture
def mailbox() -> Iterator[tuple[int, list[EmailMessage], list[str]]]:
    """A real SMTP server that requires a login: (port, messages, passwords it was given)."""
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    messages: list[EmailMessage] = []
    passwords: list[str] = []

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
            message = message_from_bytes(envelope.content, policy=policy.default)
            assert isinstance(message, EmailMessage)
            messages.append(message)
            return "250 OK"

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        assert isinstance(data, LoginPassword)
        passwords.append(data.password.decode())
        return AuthResult(success=data.password.decode() == SMTP_PASSWORD)

    with socket.socket() as probe:  # aiosmtpd checks it is up by connecting: no port 0
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    controller = Controller(
        Handler(), hostname="127.0.0.1", port=port, auth_require_tls=False,
        authenticator=authenticate,
    )  # fmt: skip
    controller.start()
    try:
        yield port, messages, passwords
    finally:
        controller.stop()


@pytest.fixture
def webhook() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """A real webhook receiver: (its base URL, the (path, body) of every POST)."""
    posts: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            posts.append((self.path, body.decode("utf-8")))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", posts
    finally:
        server.shutdown()
        server.server_close()


def _environment(smtp_port: int, hook_url: str) -> dict[str, str]:
    """A cron job's environment: every credential channelkit and its neighbours read."""
    return {
        "CHANNELKIT_API_KEY": API_KEY,
        "CHANNELKIT_SMTP_URL": f"smtp://analytics:{SMTP_PASSWORD}@127.0.0.1:{smtp_port}",
        "TEAM_HOOK_URL": hook_url + HOOK_PATH,
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "JUPYTER_TOKEN": JUPYTER_TOKEN,
    }


def _delivery(folder: Path, name: str) -> Path:
    """A delivery file sending the notebook `name`.ipynb by email and to TEAM_HOOK_URL."""
    config = folder / "deliver.toml"
    config.write_text(
        '[smtp]\nfrom = "analytics@example.com"\n\n'
        f'[[reports]]\nname = "{name}"\nperiod = "week"\ntz = "Europe/Berlin"\n'
        f'notebook = "{name}.ipynb"\nemail = ["comms-lead@example.com"]\n'
        'webhooks = [{ url_env = "TEAM_HOOK_URL", kind = "json" }]\n',
        encoding="utf-8",
    )
    return config


def _texts(message: EmailMessage) -> str:
    """Everything the email carries, attachments unzipped and decoded."""
    texts = [str(message)]
    for part in message.walk():
        if part.is_multipart():
            continue
        content = part.get_content()
        if part.get_content_type() == "application/zip":
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                texts += [archive.read(n).decode("utf-8") for n in archive.namelist()]
        elif isinstance(content, bytes):
            texts.append(content.decode("utf-8", "replace"))
        else:
            texts.append(content)
    return "\n".join(texts)


def _assert_clean(text: str, db: Path) -> None:
    assert "PATH" in text  # the environment was printed: the check below means something
    assert f"warehouse: {db.resolve()} | period: week | zone: Europe/Berlin" in text
    for secret in (*SECRETS, "CHANNELKIT_API_KEY", "CHANNELKIT_SMTP_URL", "TEAM_HOOK_URL"):
        assert secret not in text


@pytest.mark.calendar
def test_report_notebook_prints_its_environment_without_a_secret(
    small_warehouse: Path, tmp_path: Path
) -> None:
    notebook = _notebook(tmp_path / "env.ipynb")
    out = tmp_path / "env.html"
    result = CliRunner().invoke(
        main,
        ["report", "--notebook", str(notebook), "--db", str(small_warehouse), "--period", "week",
         "--tz", "Europe/Berlin", "--out", str(out)],
        env=_environment(1, "http://127.0.0.1:1"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    _assert_clean(out.read_text(encoding="utf-8"), small_warehouse)


@pytest.mark.calendar
def test_deliver_sends_a_notebook_that_prints_its_environment_without_a_secret(
    small_warehouse: Path,
    tmp_path: Path,
    mailbox: tuple[int, list[EmailMessage], list[str]],
    webhook: tuple[str, list[tuple[str, str]]],
) -> None:
    port, messages, passwords = mailbox
    hook_url, posts = webhook
    _notebook(tmp_path / "env.ipynb")
    config = _delivery(tmp_path, "env")
    result = CliRunner().invoke(
        main,
        ["deliver", str(config), "--db", str(small_warehouse)],
        env=_environment(port, hook_url),
    )
    assert result.exit_code == 0, result.output
    # the delivery itself used the secrets: the password logged in, the hook's path was posted to
    assert passwords == [SMTP_PASSWORD] and [path for path, _ in posts] == [HOOK_PATH]
    assert len(messages) == 1
    _assert_clean(_texts(messages[0]), small_warehouse)
    for _, body in posts:
        for secret in SECRETS:
            assert secret not in body
    for secret in SECRETS:
        assert secret not in result.output


def test_the_kernel_environment_is_an_allow_list() -> None:
    environ = {
        "PATH": "/usr/bin",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": "/calendar",
        "CHANNELKIT_TZ": "Europe/Berlin",
        "CHANNELKIT_API_KEY": API_KEY,
        "MY_WEBHOOK": "https://hooks.example.com/T/B/x",
        "JUPYTER_TOKEN": JUPYTER_TOKEN,
    }
    assert kernel_environment(environ) == {
        "PATH": "/usr/bin",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": "/calendar",
        "CHANNELKIT_TZ": "Europe/Berlin",
    }


# What a notebook author could try: the parent's environment, its command line and the files
# it names (relative ones from the parent's folder), the parent's folder, its open files, and
# the kernel's own folder (the notebook's, before).
_PROBE = """
import os, pathlib
parent = pathlib.Path(f"/proc/{os.getppid()}")

def attempt(what, read):
    try:
        print(what, "read:", read())
    except OSError as exc:
        print(what, "refused:", type(exc).__name__)

def text(path):
    return pathlib.Path(path).read_bytes()[:100_000].decode("utf-8", "replace").replace("\\0", " ")

def named_files():
    args = (parent / "cmdline").read_bytes().decode().split("\\0")
    return {a: text(a if os.path.isabs(a) else parent / "cwd" / a) for a in args
            if a.endswith((".toml", ".ipynb", ".env"))}

attempt("environ", lambda: text(parent / "environ"))
attempt("cmdline", lambda: text(parent / "cmdline"))
attempt("named files", named_files)
def files(folder):
    return {p.name: text(p) for p in pathlib.Path(folder).iterdir() if p.is_file()}

attempt("parent folder", lambda: files(parent / "cwd"))
attempt("open files", lambda: files(parent / "fd"))
attempt("own folder", lambda: files("."))
"""


def _probing_run(tmp_path: Path) -> Path:
    """The folder a cron job runs in: the probing notebook and a `.env` of the user's."""
    run = tmp_path / "run"
    run.mkdir()
    write_notebook(
        run / "probe.ipynb", _PROBE, _PRINT_PARAMETERS,
        parameters='db = ""\nperiod = "week"\ntz = "UTC"',
    )  # fmt: skip
    (run / ".env").write_text(f"CHANNELKIT_API_KEY={API_KEY}\n", encoding="utf-8")
    return run


def _channelkit(run: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """channelkit as its own process, as cron starts it: the secrets in its environment."""
    return subprocess.run(
        [sys.executable, "-m", "channelkit", *args],
        cwd=run, env={**os.environ, **env}, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip


def _assert_probed(text: str, db: Path) -> None:
    """No secret came back, every attempt ran, and the ones through /proc were refused."""
    assert f"warehouse: {db.resolve()} | period: week | zone: Europe/Berlin" in text
    for secret in (*SECRETS, "CHANNELKIT_SMTP_URL", "TEAM_HOOK_URL"):
        assert secret not in text, secret
    for what in ("environ", "open files", "parent folder"):
        assert f"{what} refused: PermissionError" in text, what
    assert "cmdline read: " in text  # readable by every process: it holds no secret
    assert "own folder read: {}" in text  # an empty folder, not the notebook's


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.calendar
def test_report_notebook_cannot_read_its_parents_secrets(
    small_warehouse: Path, tmp_path: Path
) -> None:
    run = _probing_run(tmp_path)
    done = _channelkit(
        run, _environment(1, "http://127.0.0.1:1"),
        "report", "--notebook", "probe.ipynb", "--db", str(small_warehouse), "--period", "week",
        "--tz", "Europe/Berlin", "--out", "probe.html",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    _assert_probed((run / "probe.html").read_text(encoding="utf-8"), small_warehouse)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
@pytest.mark.calendar
def test_deliver_mails_a_notebook_that_cannot_read_its_parents_secrets(
    small_warehouse: Path,
    tmp_path: Path,
    mailbox: tuple[int, list[EmailMessage], list[str]],
    webhook: tuple[str, list[tuple[str, str]]],
) -> None:
    port, messages, passwords = mailbox
    hook_url, posts = webhook
    run = _probing_run(tmp_path)
    _delivery(run, "probe")
    done = _channelkit(
        run, _environment(port, hook_url), "deliver", "deliver.toml", "--db", str(small_warehouse)
    )
    assert done.returncode == 0, done.stderr
    assert passwords == [SMTP_PASSWORD] and [path for path, _ in posts] == [HOOK_PATH]
    assert len(messages) == 1
    mailed = _texts(messages[0])
    _assert_probed(mailed, small_warehouse)
    # the delivery file its command line names was read, and held nothing secret
    assert "named files read: {'deliver.toml'" not in mailed  # relative: the parent's folder
    assert "named files refused: PermissionError" in mailed


@pytest.mark.parametrize(
    ("smtp", "hook", "where", "says"),
    [
        (
            'url = "smtp://analytics:hunter2@127.0.0.1:2525"\n', '{ url_env = "HOOK" }',
            "smtp.url", "give the URL with its password in CHANNELKIT_SMTP_URL instead",
        ),
        (
            "", '{ url = "https://hooks.example.com/T0/B0/secret" }',
            "reports[0].webhooks[0].url", 'name it instead, url_env = "WEEKLY_MINE_HOOK_URL"',
        ),
    ],
    ids=["smtp password", "webhook url"],
)  # fmt: skip
@pytest.mark.calendar
def test_a_delivery_file_that_runs_a_notebook_holds_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smtp: str, hook: str, where: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)  # the default warehouse's job log lands here, not in the checkout
    _notebook(tmp_path / "mine.ipynb")
    config = tmp_path / "deliver.toml"
    config.write_text(
        f'[smtp]\n{smtp}from = "analytics@example.com"\n\n'
        '[[reports]]\nname = "weekly.mine"\nperiod = "week"\nnotebook = "mine.ipynb"\n'
        f'email = ["comms-lead@example.com"]\nwebhooks = [{hook}]\n',
        encoding="utf-8",
    )
    env = {"HOOK": "https://hooks.example.com/x", "CHANNELKIT_SMTP_URL": "smtp://127.0.0.1:1"}
    args = ["deliver", str(config), "--db", str(tmp_path / "warehouse.duckdb"), "--dry-run"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 2, result.output
    line = result.stderr.splitlines()[-1]  # under click's usage lines
    assert "Traceback" not in result.output
    assert f"{config}: {where}" in line and says in line, line
    assert "hunter2" not in result.output and "/secret" not in result.output

"""Fixtures of the widget tests: a client with channels; JupyterLab driven in Chromium."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import httpx
import pytest

from channelkit.client import Channel, Client
from channelkit.service import LocalService

if TYPE_CHECKING:
    from playwright.sync_api import Page

BERLIN = "Europe/Berlin"


@pytest.fixture
def client(service: LocalService, admin_key: str) -> Iterator[Client]:
    with Client(base_url=service.base_url, api_key=admin_key) as own:
        yield own


@pytest.fixture
def channels(client: Client) -> dict[str, Channel]:
    """`all-hands` and `engineering` (open), `old-news` (archived), by slug."""
    made = {
        slug: client.channels.create(name=name, slug=slug)
        for slug, name in (
            ("all-hands", "All Hands"),
            ("engineering", "Engineering"),
            ("old-news", "Old News"),
        )
    }
    made["old-news"] = client.channels.update(made["old-news"].id, is_archived=True)
    return made


@pytest.fixture
def future_wall() -> datetime:
    """A naive wall time three days from now at 09:00, meant to be read in Berlin."""
    today = datetime.now(ZoneInfo(BERLIN)).replace(tzinfo=None)
    return (today + timedelta(days=3)).replace(hour=9, minute=0, second=0, microsecond=0)


# --- JupyterLab in Debian's Chromium, for the browser test ----------------------------------

CHROMIUM = Path("/usr/bin/chromium")
# Never a browser download: Playwright drives the distribution's Chromium, offline and quiet.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
SERVER_START_TIMEOUT_S = 60.0
PAGE_TIMEOUT_MS = 60_000
# JupyterLab settings for a test: every cell attached to the page (widgets off-screen stay
# findable), no news fetched from the internet and no toasts.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
        "doNotDisturbMode": True,  # no toast may cover a control the test clicks
    },
}


_KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
        && panel.sessionContext.session.kernel;
    return Boolean(kernel) && kernel.status === "idle";
}"""


@dataclass(frozen=True)
class JupyterLab:
    """A running JupyterLab server: its address, token and log file."""

    url: str
    token: str
    log: Path

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}"

    def open_notebook(self, page: Page, name: str, *, timeout_ms: float) -> None:
        """Open notebook `name` in `page` and wait until its kernel is started and idle."""
        page.goto(self.notebook_url(name))
        page.wait_for_function(_KERNEL_IDLE, timeout=timeout_ms)

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


StartLab = Callable[[Path, Mapping[str, str]], JupyterLab]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(apt-get install chromium, as .ci/run does) to run the browser test"
        )
    return CHROMIUM


@pytest.fixture
def start_jupyter_lab(tmp_path: Path) -> Iterator[StartLab]:
    """`start(root_dir, env)`: JupyterLab on a free port, this venv's kernel, private dirs."""
    servers: list[tuple[subprocess.Popen[bytes], JupyterLab]] = []

    def start(root: Path, env: Mapping[str, str]) -> JupyterLab:
        home = tmp_path / f"jupyter-{len(servers)}"
        settings = home / "settings"
        for name, values in LAB_SETTINGS.items():
            (settings / name).parent.mkdir(parents=True, exist_ok=True)
            (settings / name).write_text(json.dumps(values))
        port, token = _free_port(), secrets.token_hex(16)
        lab = JupyterLab(f"http://127.0.0.1:{port}", token, home / "jupyter.log")
        command = [
            sys.executable,  # the kernel runs on this interpreter: the project's venv
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True",
            f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={home / 'workspaces'}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        if os.geteuid() == 0:
            command.append("--allow-root")  # CI containers run as root
        private = {
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "IPYTHONDIR": str(home / "ipython"),
            # what the kernel's publishing remembers stays in this test's folders
            "CHANNELKIT_LEDGER": str(home / "sent-posts.sqlite3"),
        }
        with lab.log.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env={**os.environ, **private, **env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        servers.append((process, lab))
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"JupyterLab exited ({process.returncode}):\n{lab.log_tail()}")
            try:
                status = httpx.get(
                    f"{lab.url}/api/status",
                    headers={"Authorization": f"token {token}"},
                    timeout=1.0,
                )
                if status.status_code == 200:
                    return lab
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer in time:\n{lab.log_tail()}")
            time.sleep(0.2)

    yield start
    for process, lab in servers:
        process.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        print(f"--- JupyterLab log ({lab.log}) ---\n{lab.log_tail()}")


@pytest.fixture
def browser_page(chromium: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A Chromium page; parametrize it indirectly with a locale ("de-DE"), default en-US."""
    from playwright.sync_api import sync_playwright

    locale = getattr(request, "param", "en-US")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium), args=(*CHROMIUM_ARGS, f"--lang={locale}")
        )
        # Far from Berlin and UTC, so that a wall time shifted by the browser's zone shows.
        page = browser.new_page(
            viewport={"width": 1400, "height": 1000},
            timezone_id="Pacific/Auckland",
            locale=locale,
        )
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        try:
            yield page
        finally:
            shot = tmp_path / "page.png"
            page.screenshot(path=str(shot), full_page=True)
            print(f"--- screenshot: {shot}; page errors: {errors or 'none'}")
            browser.close()

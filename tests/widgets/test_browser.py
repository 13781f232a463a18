"""The real thing: notebook 02 in JupyterLab, in Debian's Chromium, scheduling with the Composer.

The test starts the service and JupyterLab (whose kernel gets the service's address and key
through CHANNELKIT_BASE_URL / CHANNELKIT_API_KEY), runs every cell of the notebook in the
browser, fills the Composer in like a person would, presses Schedule, and then asks the
service, over HTTP, whether the post is there.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest

from channelkit._constants import ENV_API_KEY, ENV_BASE_URL
from channelkit.client import Client
from channelkit.service import LocalService

if TYPE_CHECKING:
    from playwright.sync_api import Page

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02-bulk-schedule.ipynb"
RUN_ALL_TIMEOUT_MS = 120_000

_KERNEL_IDLE = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const kernel = panel && panel.sessionContext && panel.sessionContext.session
        && panel.sessionContext.session.kernel;
    return Boolean(kernel) && kernel.status === "idle";
}"""
# Resolves to "done" once the notebook's last widget is shown, or to the first error output.
_RUN_ALL_OUTCOME = """() => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    for (let i = 0; i < cells.length; i++) {
        const outputs = cells.get(i).outputs;
        for (let j = 0; outputs && j < outputs.length; j++) {
            const output = outputs.get(j).toJSON();
            if (output.output_type === "error") {
                return `cell ${i + 1}: ${output.ename}: ${output.evalue}`;
            }
        }
    }
    const shown = [".ck-composer", ".ck-bulk-upload"].every((css) => document.querySelector(css));
    return shown ? "done" : false;
}"""


@pytest.mark.browser
@pytest.mark.slow
def test_composer_in_jupyterlab_schedules_a_post(
    browser_page: Page,
    start_jupyter_lab: Callable[..., Any],
    service_factory: Callable[..., LocalService],
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    service = service_factory(seed="demo")
    key = service.demo_keys["admin"]
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    lab = start_jupyter_lab(root, {ENV_BASE_URL: service.base_url, ENV_API_KEY: key})
    page = browser_page

    page.goto(lab.notebook_url(NOTEBOOK.name))
    page.wait_for_function(_KERNEL_IDLE, timeout=RUN_ALL_TIMEOUT_MS)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")

    outcome = page.wait_for_function(_RUN_ALL_OUTCOME, timeout=RUN_ALL_TIMEOUT_MS)
    assert outcome.json_value() == "done"
    composer = page.locator(".ck-composer")

    berlin = ZoneInfo("Europe/Berlin")
    wall = (datetime.now(berlin) + timedelta(days=2)).replace(
        hour=10, minute=15, second=0, microsecond=0, tzinfo=None
    )
    title = f"Browser test post {wall:%d %b %H:%M}"
    channel_label = "IT & Security (it-security)"
    composer.locator(".ck-composer-channel select").select_option(label=channel_label)
    composer.locator(".ck-composer-title input").fill(title)
    composer.locator(".ck-composer-body textarea").fill("Patch **tonight**, please.")
    composer.locator(".ck-composer-timezone select").select_option("Europe/Berlin")
    composer.locator(".ck-composer-when input").fill(f"{wall:%Y-%m-%dT%H:%M}")

    # The kernel answers each edit: the live preview and the button's label are its replies,
    # so seeing them means the kernel holds every value before Schedule is pressed.
    preview = composer.locator(".ck-composer-preview")
    expect(preview.locator("strong")).to_have_text("tonight")
    expect(preview).to_contain_text(title)
    expect(preview).to_contain_text(channel_label)
    button = composer.locator("button.ck-composer-schedule")
    expect(button).to_have_text("Schedule")
    button.click()

    post_id = composer.locator(".ck-composer-result .ck-post-id")
    expect(post_id).to_have_text(re.compile(r"^post_"))

    with Client(base_url=service.base_url, api_key=key) as client:
        post = client.posts.retrieve(post_id.inner_text())
        channel = next(c for c in client.channels.list() if c.slug == "it-security")
        town_hall = [
            p.title
            for p in client.posts.list(tag="town-hall")
            if p.title == "Town hall on Thursday" and p.status == "scheduled"
        ]
    assert (post.title, post.body, post.channel_id) == (
        title,
        "Patch **tonight**, please.",
        channel.id,
    )
    assert post.status == "scheduled"
    assert post.scheduled_at == wall.replace(tzinfo=berlin).astimezone(UTC)
    assert town_hall == ["Town hall on Thursday"]  # the notebook's bulk cells ran here too
    assert key not in page.content()

"""The real thing: notebook 02 in JupyterLab, in Debian's Chromium, driven by Playwright.

The test starts the service and JupyterLab (whose kernel gets the service's address and key
through CHANNELKIT_BASE_URL / CHANNELKIT_API_KEY), runs every cell of the notebook in the
browser, fills the Composer in like a person would and presses Schedule, publishes one post
now only after ticking the confirmation that names the channel and its audience, uploads a
file to BulkUpload, submits it and downloads the results, then a Hootsuite file whose
channel and date order are chosen in the widget; then it asks the service, over HTTP,
whether the posts are there. It runs with the browser in German and in US English.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import openpyxl
import pytest

from channelkit._constants import ENV_API_KEY, ENV_BASE_URL
from channelkit.client import Client
from channelkit.publish.post.origin import origins, without_origin
from channelkit.service import LocalService

if TYPE_CHECKING:
    from playwright.sync_api import Page

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02-bulk-schedule.ipynb"
RUN_ALL_TIMEOUT_MS = 120_000
BERLIN = ZoneInfo("Europe/Berlin")

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
# Date and time controls are drawn in the browser's language (TT.MM.JJJJ in German): the
# wall time must reach the kernel the same in each.
@pytest.mark.parametrize("browser_page", ["de-DE", "en-US"], indirect=True)
def test_notebook_02_in_jupyterlab_schedules_with_both_widgets(
    browser_page: Page,
    start_jupyter_lab: Callable[..., Any],
    service_factory: Callable[..., LocalService],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    service = service_factory(seed="demo")
    key = service.demo_keys["admin"]
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    lab = start_jupyter_lab(root, {ENV_BASE_URL: service.base_url, ENV_API_KEY: key})
    page = browser_page

    lab.open_notebook(page, NOTEBOOK.name, timeout_ms=RUN_ALL_TIMEOUT_MS)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    outcome = page.wait_for_function(_RUN_ALL_OUTCOME, timeout=RUN_ALL_TIMEOUT_MS)
    assert outcome.json_value() == "done"

    assert page.evaluate("() => navigator.language") == request.node.callspec.params["browser_page"]
    with Client(base_url=service.base_url, api_key=key) as client:
        _schedule_with_the_composer(page, client)
        _publish_now_only_after_confirming(page, client)
        _upload_and_submit_a_file(page, client, tmp_path)
        _upload_a_hootsuite_file_choosing_its_channel(page, client, tmp_path)
        town_hall = [
            post.title
            for post in client.posts.list(tag="town-hall")
            if post.title == "Town hall on Thursday" and post.status == "scheduled"
        ]
    assert town_hall == ["Town hall on Thursday"]  # the notebook's bulk cells ran here too
    assert key not in page.content()


def _schedule_with_the_composer(page: Page, client: Client) -> None:
    from playwright.sync_api import expect

    wall = (datetime.now(BERLIN) + timedelta(days=2)).replace(
        hour=10, minute=15, second=0, microsecond=0, tzinfo=None
    )
    title = f"Browser test post {wall:%d %b %H:%M}"
    channel_label = "IT & Security (it-security)"
    composer = page.locator(".ck-composer")
    button = composer.locator("button.ck-composer-schedule")
    preview = composer.locator(".ck-composer-preview")

    # No channel is chosen for the user: the all-company channel is one click away, not preset.
    channel_select = composer.locator(".ck-composer-channel select")
    assert channel_select.evaluate("(select) => select.selectedIndex") == -1
    # An empty form: the messages appear beside the fields they concern.
    expect(button).to_have_text("Publish now")
    button.click()
    expect(composer.locator(".ck-composer-error-title")).to_have_text("⚠ title is required")
    expect(composer.locator(".ck-composer-error-body")).to_have_text("⚠ body is required")
    # Markup typed into the body is shown as text, never run or loaded.
    composer.locator(".ck-composer-body textarea").fill('<img src=x onerror="alert(1)"> hi')
    expect(preview).to_contain_text('<img src=x onerror="alert(1)"> hi')
    expect(preview.locator("img")).to_have_count(0)

    channel_select.select_option(label=channel_label)
    composer.locator(".ck-composer-title input").fill(title)
    composer.locator(".ck-composer-body textarea").fill("Patch **tonight**, please.")
    composer.locator(".ck-composer-timezone select").select_option("Europe/Berlin")
    composer.locator(".ck-composer-when input").fill(f"{wall:%Y-%m-%dT%H:%M}")
    # Tags pasted as one text become three tags (insert_text is what a paste does).
    tags_input = composer.locator(".ck-composer-tags input")
    tags_input.click()
    page.keyboard.insert_text("patch, security, tonight")
    tags_input.press("Enter")
    tags_input.blur()  # the widget commits a tag on the input's change event
    chips = composer.locator(".ck-composer-tags div.jupyter-widget-tag")
    expect(chips).to_have_text(["patch", "security", "tonight"])

    # The kernel answers each edit: the live preview and the button's label are its replies,
    # so seeing them means the kernel holds every value before Schedule is pressed.
    expect(preview.locator("strong")).to_have_text("tonight")
    expect(preview).to_contain_text(title)
    expect(preview).to_contain_text(channel_label)
    expect(composer.locator(".ck-composer-error-title")).to_have_text("")  # cleared by typing
    expect(button).to_have_text("Schedule")
    button.click()

    post_id = composer.locator(".ck-composer-result .ck-post-id")
    expect(post_id).to_have_text(re.compile(r"^post_"))
    post = client.posts.retrieve(post_id.inner_text())
    channel = next(c for c in client.channels.list() if c.slug == "it-security")
    assert (post.title, post.body, post.channel_id) == (
        title,
        "Patch **tonight**, please.",
        channel.id,
    )
    assert post.status == "scheduled"
    # the composer's tags, and the origin tag every post channelkit creates carries
    assert sorted(without_origin(post.tags)) == ["patch", "security", "tonight"]
    assert len(origins(post.tags)) == 1
    # The browser runs in another zone than Berlin: the wall time must not be shifted by it.
    assert post.scheduled_at == wall.replace(tzinfo=BERLIN).astimezone(UTC)
    # Emptied for the next post; the channel stays.
    expect(composer.locator(".ck-composer-title input")).to_have_value("")
    expect(composer.locator(".ck-composer-body textarea")).to_have_value("")
    expect(composer.locator(".ck-composer-tags div.jupyter-widget-tag")).to_have_count(0)
    assert channel_select.evaluate("(select) => select.selectedIndex") >= 0


def _publish_now_only_after_confirming(page: Page, client: Client) -> None:
    from playwright.sync_api import expect

    composer = page.locator(".ck-composer")
    button = composer.locator("button.ck-composer-schedule")
    confirm = composer.locator(".ck-composer-confirm-now")
    channel = next(c for c in client.channels.list() if c.slug == "all-hands")
    title = f"Browser test: publish now {datetime.now(UTC):%H%M%S}"
    label = f"{channel.name} ({channel.slug})"
    composer.locator(".ck-composer-channel select").select_option(label=label)
    composer.locator(".ck-composer-when input").fill("")  # no time: publish now
    composer.locator(".ck-composer-title input").fill(title)
    composer.locator(".ck-composer-body textarea").fill("Coffee in the atrium.")
    expect(button).to_have_text("Publish now")
    expect(confirm).to_be_hidden()

    button.click()

    people = f"{channel.subscriber_count:,} people"
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text(f"Publish now to {channel.name}, {people}?")
    expect(composer.locator(".ck-composer-result")).to_contain_text("no time is set")
    assert not [p for p in client.posts.list(channel_id=channel.id) if p.title == title]

    confirm.locator("input[type=checkbox]").check()
    button.click()

    post_id = composer.locator(".ck-composer-result .ck-post-id")
    expect(post_id).to_have_text(re.compile(r"^post_"))
    published = [p for p in client.posts.list(channel_id=channel.id) if p.title == title]
    assert [(p.id, p.status) for p in published] == [(post_id.inner_text(), "published")]
    expect(confirm).to_be_hidden()


def _upload_and_submit_a_file(page: Page, client: Client, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    day = datetime.now(BERLIN) + timedelta(days=3)
    posts_csv = tmp_path / "week.csv"
    posts_csv.write_text(
        "channel,title,body,scheduled_at,tags\n"
        f"social,Browser upload: quiz night,Teams of four,{day:%Y-%m-%d} 18:00,social\n"
        f"company-news,Browser upload: new canteen,Opens **Monday**,{day:%Y-%m-%d} 08:30,\n",
        encoding="utf-8",
    )
    upload = page.locator(".ck-bulk-upload")
    submit = upload.locator("button.ck-bulk-submit")
    expect(submit).to_be_disabled()
    with page.expect_file_chooser() as chooser:  # the widget's file input is off the page
        upload.locator(".ck-bulk-file").click()
    chooser.value.set_files(posts_csv)
    expect(upload.locator(".ck-bulk-status")).to_contain_text("Ready to submit")
    expect(upload.locator(".ck-bulk-table")).to_contain_text("quiz night")
    expect(submit).to_be_enabled()
    submit.click()

    expect(upload.locator(".ck-bulk-status")).to_contain_text("2 created")
    with page.expect_download() as download:
        upload.locator("a.ck-bulk-results-file").click()
    assert download.value.suggested_filename == "channelkit-results.xlsx"
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    sheet = openpyxl.load_workbook(saved).active
    assert sheet is not None
    rows = list(sheet.values)[1:]
    assert [(row[1], row[5]) for row in rows] == [
        ("created", "Browser upload: quiz night"),
        ("created", "Browser upload: new canteen"),
    ]
    for row in rows:
        post = client.posts.retrieve(str(row[2]))
        assert (post.title, post.status) == (row[5], "scheduled")

    # The same file chosen again is read again, and recognised as sent before (the ledger).
    with page.expect_file_chooser() as chooser:
        upload.locator(".ck-bulk-file").click()
    chooser.value.set_files(posts_csv)
    expect(upload.locator(".ck-bulk-status")).to_contain_text("2 sent before")


def _upload_a_hootsuite_file_choosing_its_channel(
    page: Page, client: Client, tmp_path: Path
) -> None:
    """A Hootsuite bulk file (no header row: date and time day first, message, link) has
    no channel: it is chosen in the widget, with the date order, before Submit."""
    from playwright.sync_api import expect

    day = datetime.now(BERLIN) + timedelta(days=4)
    hootsuite = tmp_path / "hootsuite.csv"
    hootsuite.write_text(
        f"{day:%d/%m/%Y} 11:00,Browser Hootsuite: yoga at noon.,\n"
        f"{day:%d/%m/%Y} 16:45,Browser Hootsuite: cake in the kitchen.,https://example.com\n",
        encoding="utf-8",
    )
    social = next(channel for channel in client.channels.list() if channel.slug == "social")
    upload = page.locator(".ck-bulk-upload")
    with page.expect_file_chooser() as chooser:
        upload.locator(".ck-bulk-file").click()
    chooser.value.set_files(hootsuite)
    status = upload.locator(".ck-bulk-status")
    expect(status).to_contain_text("give the channel for the whole file with a Channel")
    expect(upload.locator("button.ck-bulk-submit")).to_be_disabled()

    upload.locator(".ck-bulk-channel select").select_option(label=f"{social.name} (social)")
    upload.locator(".ck-bulk-date-order select").select_option(label="day first (31/12/2031)")
    reading = upload.locator(".ck-bulk-reading")
    expect(reading).to_contain_text("read as a Hootsuite bulk file: date-time, message, link")
    expect(reading).to_contain_text("channel social for every row (Channel)")
    expect(status).to_contain_text("Ready to submit")
    upload.locator("button.ck-bulk-submit").click()
    expect(status).to_contain_text("2 created")

    made = {
        post.title: post
        for post in client.posts.list(channel_id=social.id)
        if post.title.startswith("Browser Hootsuite")
    }
    assert sorted(made) == [
        "Browser Hootsuite: cake in the kitchen.",
        "Browser Hootsuite: yoga at noon.",
    ]
    noon = made["Browser Hootsuite: yoga at noon."]
    assert noon.scheduled_at == day.replace(hour=11, minute=0, second=0, microsecond=0).astimezone(
        UTC
    )

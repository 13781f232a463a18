"""Notebook 02 run headless (nbclient, this venv's kernel) against a service the test owns."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from channelkit._constants import ENV_API_KEY, ENV_BASE_URL, ENV_TZ
from channelkit.client import Client
from channelkit.service import LocalService

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02-bulk-schedule.ipynb"
PLANNED = {
    "Town hall on Thursday": "all-hands",
    "Release 4.2 is out": "company-news",
    "Phishing drill this week": "it-security",
    "Open enrolment closes Friday": "benefits-hr",
    "Friday pizza": "social",
}


def _run(tmp_path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    return notebook


def _text(notebook: nbformat.NotebookNode) -> str:
    return json.dumps([cell.get("outputs", []) for cell in notebook.cells])


def test_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.slow
def test_schedules_the_plan_in_the_service_it_is_given(
    service_factory: Callable[..., LocalService],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    service = service_factory(seed="demo")
    key = service.demo_keys["admin"]
    monkeypatch.setenv(ENV_BASE_URL, service.base_url)
    monkeypatch.setenv(ENV_API_KEY, key)
    monkeypatch.delenv(ENV_TZ, raising=False)

    notebook = _run(tmp_path)

    with Client(base_url=service.base_url, api_key=key) as client:
        slugs = {channel.id: channel.slug for channel in client.channels.list()}
        scheduled = [
            (post.title, slugs[post.channel_id])
            for post in client.posts.list()
            if post.title in PLANNED and post.status == "scheduled"
        ]
    # Each planned post exactly once, in the channel the fixed plan names, although the
    # notebook submits the file twice.
    assert sorted(scheduled) == sorted(PLANNED.items())
    outputs = _text(notebook)
    assert "4 with errors" in outputs  # the broken plan was shown before it was fixed
    assert "{'already_created': 5}" in outputs  # this machine remembers what it sent
    assert key not in outputs
    assert "application/vnd.jupyter.widget-view+json" in outputs  # Composer and BulkUpload


@pytest.mark.slow
def test_starts_its_own_demo_service_without_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ENV_BASE_URL, raising=False)
    monkeypatch.delenv(ENV_API_KEY, raising=False)

    outputs = _text(_run(tmp_path))

    assert "service: http://127.0.0.1:" in outputs
    assert "<SubmitResult 'posts.xlsx': 5 created>" in outputs
    assert '"output_type": "error"' not in outputs

"""The OpenAPI document: checked in, served, and in step with the service's limits."""

from __future__ import annotations

from pathlib import Path

import httpx

from channelkit.service import LocalService
from channelkit.service.openapi import openapi_document, render

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_checked_in_document_is_current() -> None:
    assert DOCS.read_text() == render(), (
        "docs/openapi.json is stale: python -m channelkit.service.openapi --write"
    )


def test_served_without_a_key(service: LocalService) -> None:
    response = httpx.get(f"{service.base_url}/openapi.json")
    assert response.status_code == 200
    served = response.json()
    assert served["servers"] == [{"url": service.base_url}]
    assert {**served, "servers": None} == {**openapi_document(), "servers": None}
    assert served["openapi"].startswith("3.1")
    assert "X-RateLimit-Limit" in response.headers

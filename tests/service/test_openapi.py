"""The OpenAPI document: checked in, served, and in step with the service's limits."""

from __future__ import annotations

from pathlib import Path

import httpx

from channelkit import _spec
from channelkit.service import LocalService
from channelkit.service.openapi import document_text, openapi_document, print_or_write

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_checked_in_document_is_current() -> None:
    assert DOCS.read_text() == document_text(), (
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


def test_write_command_writes_the_document(tmp_path: Path) -> None:
    target = tmp_path / "openapi.json"
    assert print_or_write(["--write", str(target)]) == 0
    assert target.read_text() == document_text()


def test_every_contract_operation_is_published() -> None:
    document = openapi_document()
    published = {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    assert published == {(op.method, op.path) for op in _spec.OPERATIONS}
    post = document["components"]["schemas"]["Post"]
    assert post["required"] == list(_spec.field_names(_spec.POST_FIELDS))


def test_schema_is_as_strict_as_the_service_on_instants() -> None:
    import jsonschema

    instant = openapi_document()["components"]["parameters"]["published_after"]["schema"]
    checker = jsonschema.Draft202012Validator(instant, format_checker=jsonschema.FormatChecker())
    for bad in ("0000-00-00", "2026-13-01", "2026-01-01T10:00:00", "2026-01-01T10:00:00+24:00"):
        assert not checker.is_valid(bad), bad
    for good in ("0001-01-01", "2026-01-01T10:00:00.5+18:00", "9999-12-31T23:59:59Z"):
        assert checker.is_valid(good), good


def test_etag_and_if_match_are_described() -> None:
    document = openapi_document()
    get_post = document["paths"]["/posts/{id}"]["get"]["responses"]["200"]
    assert "ETag" in get_post["headers"]
    patch = document["paths"]["/posts/{id}"]["patch"]
    assert {"$ref": "#/components/parameters/If-Match"} in patch["parameters"]
    assert "409" in document["paths"]["/posts/{id}"]["delete"]["responses"]

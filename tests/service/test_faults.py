"""Fault injection: every kind happens, reproducibly for a seed, and lost creates commit."""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.service import LocalService
from channelkit.service.faults import parse_faults

SPEC = "500=0.15,503=0.15,drop=0.15,truncate=0.15,lost_create=0.2"


def _outcomes(service: LocalService, n: int) -> list[str]:
    key = service.create_key()
    outcomes = []
    with httpx.Client(base_url=service.base_url, headers={"Authorization": f"Bearer {key}"}) as c:
        for i in range(n):
            try:
                if i % 2:
                    response = c.post("/channels", json={"name": f"c{i}"})
                else:
                    response = c.get("/channels")
                outcomes.append(str(response.status_code))
            except httpx.TransportError:  # a cut body or a reset connection
                outcomes.append("dropped")
    return outcomes


def test_faults_are_reproducible_for_a_seed(service_factory: Any) -> None:
    first = _outcomes(service_factory(faults=SPEC, fault_seed=7), 40)
    again = _outcomes(service_factory(faults=SPEC, fault_seed=7), 40)
    other = _outcomes(service_factory(faults=SPEC, fault_seed=8), 40)
    assert first == again
    assert first != other
    assert {"200", "201", "500", "503", "dropped"} <= set(first)


def test_error_faults_carry_the_error_body_and_headers(service_factory: Any) -> None:
    service = service_factory(faults="503=1.0")
    key = service.create_key()
    response = httpx.get(f"{service.base_url}/posts", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "server_error"
    assert response.headers["Retry-After"] == "1"
    assert "X-RateLimit-Remaining" in response.headers


def test_lost_create_commits_the_write(service_factory: Any, client_for: Any) -> None:
    service = service_factory(faults="lost_create=1.0", admin=True)
    key = service.create_key()
    api = client_for(service, key)
    with pytest.raises(httpx.TransportError):
        api.post("/channels", json={"name": "Kept"}, headers={"Idempotency-Key": "k"})
    names = [c["name"] for c in api.get("/channels").json()["data"]]
    assert names == ["Kept"]  # GETs are not affected by lost_create
    with pytest.raises(httpx.TransportError):  # the retry is replayed, and lost again
        api.post("/channels", json={"name": "Kept"}, headers={"Idempotency-Key": "k"})
    assert len(api.get("/channels").json()["data"]) == 1
    assert client_for(service).get("/admin/clock").status_code == 200  # admin: never faulted


def test_truncated_and_slow(service_factory: Any, client_for: Any) -> None:
    truncating = service_factory(faults="truncate=1.0")
    with pytest.raises(httpx.TransportError):
        client_for(truncating, truncating.create_key()).get("/channels")
    slow = service_factory(faults="slow=1.0")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(
            f"{slow.base_url}/channels",
            headers={"Authorization": f"Bearer {slow.create_key()}"},
            timeout=0.3,
        )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("404=0.1", "unknown fault '404'"),
        ("500", "needs a rate"),
        ("500=abc", "not a number"),
        ("500=1.5", "not between 0 and 1"),
        ("500=0.6,503=0.6", "more than 1"),
        ("500=0.1,500=0.2", "given twice"),
    ],
)
def test_bad_fault_specs(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_faults(spec)
    result = CliRunner().invoke(main, ["serve", "--db", ":memory:", "--faults", spec])
    assert result.exit_code == 2 and message in result.output


def _walk(api: httpx.Client, cursor: str | None) -> dict[str, Any]:
    params = {"limit": "1"} if cursor is None else {"limit": "1", "cursor": cursor}
    response = api.get("/channels", params=params)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


def _three_channels(service_factory: Any, client_for: Any, faults: str) -> httpx.Client:
    service = service_factory(faults=faults)  # page kinds leave the creates alone
    api = client_for(service, service.create_key())
    for name in ("a", "b", "c"):
        assert api.post("/channels", json={"name": name}).status_code == 201
    return api


def test_page_kinds_distort_listings_only(service_factory: Any, client_for: Any) -> None:
    api = _three_channels(service_factory, client_for, "repeat_cursor=1.0")
    first = _walk(api, None)  # no cursor yet: nothing to repeat
    second = _walk(api, first["next_cursor"])
    assert second["next_cursor"] == first["next_cursor"] and second["has_more"]

    api = _three_channels(service_factory, client_for, "last_cursor=1.0")
    page, names = _walk(api, None), []
    while page["has_more"]:
        names += [c["name"] for c in page["data"]]
        page = _walk(api, page["next_cursor"])
    assert page["next_cursor"].startswith("ckfault")  # on the last page
    assert _walk(api, page["next_cursor"])["data"] == page["data"]  # followed: the same page

    api = _three_channels(service_factory, client_for, "empty_page=1.0")
    page = _walk(api, None)
    assert page["data"] == [] and page["has_more"] and page["next_cursor"].startswith("ckfault")
    again = _walk(api, page["next_cursor"])
    assert again["data"] == [] and again["next_cursor"] != page["next_cursor"]


def test_empty_pages_resume_where_they_stood(service_factory: Any, client_for: Any) -> None:
    api = _three_channels(service_factory, client_for, "empty_page=0.5")
    names, cursor, pages = [], None, 0
    while True:
        page = _walk(api, cursor)
        pages += 1
        names += [c["name"] for c in page["data"]]
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert sorted(names) == ["a", "b", "c"] and pages > 3


@pytest.mark.parametrize(
    ("kind", "retry_after", "rate_headers"),
    [("429_zero", "0", True), ("429_date", "date", True), ("429_bare", None, False)],
)
def test_429_kinds(
    kind: str, retry_after: str | None, rate_headers: bool, service_factory: Any, client_for: Any
) -> None:
    service = service_factory(faults=f"{kind}=1.0")
    response = client_for(service, service.create_key()).get("/posts")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert ("X-RateLimit-Remaining" in response.headers) is rate_headers
    value = response.headers.get("Retry-After")
    if retry_after == "date":
        assert value is not None
        delta = parsedate_to_datetime(value) - parsedate_to_datetime(response.headers["Date"])
        assert delta.total_seconds() == 1
    else:
        assert value == retry_after


def test_clock_kinds_move_the_reset_ten_minutes(service_factory: Any, client_for: Any) -> None:
    def headers(faults: str | None) -> tuple[float, float]:
        service = service_factory(faults=faults)
        response = client_for(service, service.create_key()).get("/posts")
        assert response.status_code == 200
        date = parsedate_to_datetime(response.headers["Date"]).timestamp()
        return date, float(response.headers["X-RateLimit-Reset"])

    date, reset = headers(None)
    for kind, date_moves in (("reset_ahead", False), ("clock_ahead", True)):
        moved_date, moved_reset = headers(f"{kind}=1.0")
        assert moved_reset - reset == pytest.approx(600, abs=61)  # a later window, maybe
        assert (moved_date - date > 300) is date_moves


def test_html_answers_200_with_a_web_page(service_factory: Any, client_for: Any) -> None:
    service = service_factory(faults="html=1.0")
    response = client_for(service, service.create_key()).get("/posts")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.text.startswith("<!DOCTYPE html>")

"""Fault injection: every kind happens, reproducibly for a seed, and lost creates commit."""

from __future__ import annotations

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

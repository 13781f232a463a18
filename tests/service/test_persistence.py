"""Restarting the service on the same file loses nothing."""

from __future__ import annotations

from typing import Any


def test_restart_keeps_everything(tmp_path: Any, service_factory: Any, client_for: Any) -> None:
    path = str(tmp_path / "svc.sqlite")
    first = service_factory(db=path)
    key = first.create_key(user="ana")
    revoked = first.create_key(user="ben")
    first.revoke_key(revoked)
    api = client_for(first, key)
    channel = api.post("/channels", json={"name": "News", "visibility": "private"}).json()
    post = api.post(
        "/posts", json={"channel_id": channel["id"], "title": "t", "body": "b", "tags": ["x"]}
    ).json()
    before = (api.get("/channels").json(), api.get("/posts").json())
    first.stop()

    second = service_factory(db=path)
    again = client_for(second, key)
    assert (again.get("/channels").json(), again.get("/posts").json()) == before
    assert again.get("/posts", params={"tag": "x"}).json()["data"][0]["id"] == post["id"]
    assert client_for(second, revoked).get("/posts").status_code == 401

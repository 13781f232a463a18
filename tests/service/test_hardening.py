"""decisions.md "Hardening", over real HTTP: instants, text, idempotency by meaning, one
Authorization header, who may hide a channel, taken slugs, ETag and If-Match."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService

ErrorOf = Callable[[httpx.Response], tuple[int, str, str | None]]
ClientFactory = Callable[..., httpx.Client]

# --- instants ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T23:59:59-14:00",  # was stored, then read back as null
        "9999-12-31T23:59:59-00:01",
        "10000-01-01T00:00:00Z",
        "2027-01-01T00:00:00+18:01",
        "2027-01-01T00:00:00+24:00",
        "2027-01-01T00:00:00+99:99",
        "0000-00-00",
        "2027-02-30",
    ],
)
def test_scheduled_at_outside_the_range_or_with_a_wild_offset_is_refused(
    api: httpx.Client, channel_id: str, error_of: ErrorOf, value: str
) -> None:
    response = api.post(
        "/posts", json={"channel_id": channel_id, "title": "t", "body": "b", "scheduled_at": value}
    )
    assert error_of(response) == (400, "invalid_request", "scheduled_at")
    assert value in response.json()["error"]["message"]
    assert api.get("/posts").json()["data"] == []


def test_the_last_instant_and_the_widest_offset_are_kept(
    api: httpx.Client, channel_id: str
) -> None:
    for value, shown in [
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"),
        ("9999-12-31T23:59:59+18:00", "9999-12-31T05:59:59Z"),
    ]:
        created = api.post(
            "/posts",
            json={"channel_id": channel_id, "title": "t", "body": "b", "scheduled_at": value},
        )
        assert created.status_code == 201, created.text
        assert api.get(f"/posts/{created.json()['id']}").json()["scheduled_at"] == shown


def test_fractions_of_a_second_are_dropped(api: httpx.Client, channel_id: str) -> None:
    created = api.post(
        "/posts",
        json={
            "channel_id": channel_id,
            "title": "t",
            "body": "b",
            "scheduled_at": "2099-12-28T09:00:30.999999999+01:00",
        },
    )
    assert created.json()["scheduled_at"] == "2099-12-28T08:00:30Z"


@pytest.mark.parametrize(
    ("path", "param", "value"),
    [
        ("/posts", "published_after", "0001-01-01T00:00:00+00:30"),
        ("/posts", "published_before", "9999-12-31T23:59:59-01:00"),
        ("/posts", "published_after", "2026-01-01T00:00:00-18:30"),
        ("/analytics/posts", "start", "0001-01-01T00:00:00+01:00"),
        ("/analytics/channels", "end", "9999-12-31T23:00:00-02:00"),
    ],
)
def test_query_instants_follow_the_same_rules(
    api: httpx.Client, error_of: ErrorOf, path: str, param: str, value: str
) -> None:
    assert error_of(api.get(path, params={param: value})) == (400, "invalid_request", param)


def test_extreme_but_valid_query_instants_are_answered(api: httpx.Client) -> None:
    for params in (
        {"published_after": "0001-01-01T00:00:00Z", "published_before": "9999-12-31"},
        {"published_after": "2026-01-01T00:00:00+18:00"},
    ):
        assert api.get("/posts", params=params).status_code == 200


# --- text hygiene -----------------------------------------------------------------------------

HOSTILE_TITLES = {
    "nul": "a\x00b",
    "ansi-escape": "\x1b[31mred",
    "c1-control": "next\x85line",
    "delete": "a\x7f",
    "newline": "two\nlines",
    "zero-width-only": "\u200b\u200c\u200d\ufeff",
    "bidi-only": "\u202e\u2066\u200f",
    "spaces-and-invisible": " \u200b \u2060 ",
}


@pytest.mark.parametrize("value", HOSTILE_TITLES.values(), ids=HOSTILE_TITLES)
def test_hostile_post_text_is_refused_naming_the_field(
    api: httpx.Client, channel_id: str, error_of: ErrorOf, value: str
) -> None:
    base = {"channel_id": channel_id, "title": "Fine", "body": "Fine", "tags": ["ok"]}
    assert error_of(api.post("/posts", json={**base, "title": value})) == (
        400,
        "invalid_request",
        "title",
    )
    assert error_of(api.post("/posts", json={**base, "tags": ["ok", value]}))[2] == "tags"
    created = api.post("/posts", json=base).json()
    assert error_of(api.patch(f"/posts/{created['id']}", json={"title": value}))[2] == "title"
    assert api.get(f"/posts/{created['id']}").json()["title"] == "Fine"


@pytest.mark.parametrize("value", ["a\x00b", "\x1b[2J", "\u200b", "a\x9bb"])
def test_hostile_channel_text_is_refused(api: httpx.Client, error_of: ErrorOf, value: str) -> None:
    assert error_of(api.post("/channels", json={"name": value}))[:3:2] == (400, "name")
    if value.strip("\u200b"):  # descriptions may be empty, so only controls matter there
        response = api.post("/channels", json={"name": "Ops", "description": value})
        assert error_of(response)[:3:2] == (400, "description")


def test_newline_and_tab_are_fine_in_body_and_description(
    api: httpx.Client, channel_id: str
) -> None:
    post = api.post("/posts", json={"channel_id": channel_id, "title": "T", "body": "a\n\tb"})
    assert post.status_code == 201, post.text
    channel = api.post("/channels", json={"name": "Ops", "description": "line 1\nline\t2"})
    assert channel.status_code == 201, channel.text
    body_nul = api.post("/posts", json={"channel_id": channel_id, "title": "T", "body": "a\x00"})
    assert body_nul.status_code == 400 and body_nul.json()["error"]["param"] == "body"


def test_visible_text_with_invisible_characters_inside_is_kept(
    api: httpx.Client, channel_id: str
) -> None:
    title = "\u05e9\u05dc\u05d5\u05dd \u200fworld\u200b!"  # Hebrew, a bidi mark, a ZWSP
    post = api.post("/posts", json={"channel_id": channel_id, "title": title, "body": "b"})
    assert post.status_code == 201, post.text
    assert post.json()["title"] == title


# --- idempotency by meaning -------------------------------------------------------------------


def test_same_json_in_another_layout_replays(api: httpx.Client, channel_id: str) -> None:
    headers = {"Idempotency-Key": "layout-1", "Content-Type": "application/json"}
    compact = f'{{"channel_id":"{channel_id}","title":"T","body":"B","tags":["a","b"]}}'
    spaced = (
        f'{{ "tags": [ "a", "b" ],\n  "body": "B", "title": "T",  "channel_id": "{channel_id}" }}'
    )
    first = api.post("/posts", content=compact, headers=headers)
    again = api.post("/posts", content=spaced, headers=headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert len(api.get("/posts").json()["data"]) == 1


def test_other_json_under_the_same_key_is_a_conflict(
    api: httpx.Client, channel_id: str, error_of: ErrorOf
) -> None:
    headers = {"Idempotency-Key": "layout-2"}
    api.post("/posts", json={"channel_id": channel_id, "title": "T", "body": "B"}, headers=headers)
    other = api.post(
        "/posts", json={"channel_id": channel_id, "title": "T", "body": "C"}, headers=headers
    )
    assert error_of(other) == (409, "conflict", "Idempotency-Key")


# --- one Authorization header -----------------------------------------------------------------


@pytest.mark.parametrize("second", ["same", "other"])
def test_two_authorization_headers_are_refused(
    service: LocalService, admin_key: str, error_of: ErrorOf, second: str
) -> None:
    other = admin_key if second == "same" else service.create_key(user="bob")
    headers = [("Authorization", f"Bearer {admin_key}"), ("Authorization", f"Bearer {other}")]
    response = httpx.get(f"{service.base_url}/posts", headers=headers)
    assert error_of(response) == (400, "invalid_request", "Authorization")
    assert "X-RateLimit-Limit" in response.headers


# --- who may hide a channel -------------------------------------------------------------------


@pytest.fixture
def outsider(service: LocalService, client_for: ClientFactory) -> httpx.Client:
    """A channels:write key of another user, in another team, not a member of anything."""
    return client_for(service, service.create_key(user="olga", team="sales"))


def test_an_outsider_may_neither_make_a_channel_private_nor_archive_it(
    api: httpx.Client, outsider: httpx.Client, error_of: ErrorOf
) -> None:
    channel = api.post("/channels", json={"name": "All hands"}).json()
    url = f"/channels/{channel['id']}"
    assert error_of(outsider.patch(url, json={"visibility": "private"})) == (
        409,
        "conflict",
        "visibility",
    )
    assert error_of(outsider.patch(url, json={"is_archived": True})) == (
        409,
        "conflict",
        "is_archived",
    )
    after = api.get(url).json()
    assert (after["visibility"], after["is_archived"]) == ("organization", False)
    # other changes stay open to every channels:write key
    assert outsider.patch(url, json={"description": "Everyone"}).status_code == 200
    # the creator is a member
    assert api.patch(url, json={"visibility": "private"}).json()["visibility"] == "private"
    assert outsider.get(url).status_code == 404


def test_the_default_channel_stays_organisation_wide_and_unarchived(
    api: httpx.Client, error_of: ErrorOf
) -> None:
    channel = api.post("/channels", json={"name": "Everyone", "is_default": True}).json()
    url = f"/channels/{channel['id']}"
    for visibility in ("private", "team"):
        refused = api.patch(url, json={"visibility": visibility})
        assert error_of(refused)[:3:2] == (409, "visibility")
    assert error_of(api.patch(url, json={"is_archived": True}))[:3:2] == (409, "is_archived")
    assert error_of(api.patch(url, json={"is_default": False}))[:3:2] == (409, "is_default")
    for visibility in ("private", "team"):
        hidden = api.post(
            "/channels", json={"name": "X", "visibility": visibility, "is_default": True}
        )
        assert error_of(hidden)[:3:2] == (409, "visibility")
    team = api.post("/channels", json={"name": "Team", "visibility": "team"}).json()
    made_default = api.patch(f"/channels/{team['id']}", json={"is_default": True})
    assert error_of(made_default)[:3:2] == (409, "is_default")
    archived = api.post("/channels", json={"name": "Old"}).json()
    api.patch(f"/channels/{archived['id']}", json={"is_archived": True})
    made_default = api.patch(f"/channels/{archived['id']}", json={"is_default": True})
    assert error_of(made_default)[:3:2] == (409, "is_archived")
    assert api.get(url).json()["visibility"] == "organization"
    assert [c["id"] for c in api.get("/channels").json()["data"] if c["is_default"]] == [url[10:]]


def test_the_default_moves_to_another_organisation_channel(api: httpx.Client) -> None:
    first = api.post("/channels", json={"name": "Everyone", "is_default": True}).json()
    second = api.post("/channels", json={"name": "News"}).json()
    assert api.patch(f"/channels/{second['id']}", json={"is_default": True}).status_code == 200
    third = api.post("/channels", json={"name": "Town square", "is_default": True}).json()
    defaults = {c["id"]: c["is_default"] for c in api.get("/channels").json()["data"]}
    assert defaults == {first["id"]: False, second["id"]: False, third["id"]: True}
    # the old default may now be archived by its creator
    assert api.patch(f"/channels/{first['id']}", json={"is_archived": True}).status_code == 200


@pytest.mark.parametrize(
    ("visibility", "change"),
    [
        ("organization", {"visibility": "team"}),
        ("organization", {"visibility": "private"}),
        ("organization", {"is_default": True}),
        ("organization", {"is_archived": True}),
        ("team", {"visibility": "organization"}),
        ("private", {"visibility": "organization"}),
        ("private", {"visibility": "team"}),
    ],
)
def test_only_the_creator_or_a_member_changes_who_sees_a_channel(
    service: LocalService,
    client_for: ClientFactory,
    error_of: ErrorOf,
    visibility: str,
    change: dict[str, Any],
) -> None:
    """In either direction: hiding a channel, widening a team or private one, moving the
    default. The outsider is in the channel's team (so sees a team channel) or a member of
    nothing; the colleague who is made a member may."""
    creator = client_for(service, service.create_key(user="ann", team="comms"))
    outsider = client_for(service, service.create_key(user="olga", team="comms"))
    channel = creator.post("/channels", json={"name": "C", "visibility": visibility}).json()
    url = f"/channels/{channel['id']}"
    before = creator.get(url).json()
    if visibility == "private":
        assert outsider.patch(url, json=change).status_code == 404
        return
    assert error_of(outsider.patch(url, json=change)) == (409, "conflict", next(iter(change)))
    assert creator.get(url).json() == before
    assert creator.patch(url, json=change).status_code == 200


def test_unarchiving_and_other_fields_stay_open_to_every_writer(
    api: httpx.Client, outsider: httpx.Client
) -> None:
    channel = api.post("/channels", json={"name": "Old"}).json()
    url = f"/channels/{channel['id']}"
    api.patch(url, json={"is_archived": True})
    assert outsider.patch(url, json={"is_archived": False}).json()["is_archived"] is False
    assert outsider.patch(url, json={"visibility": "organization"}).status_code == 200  # no change
    assert outsider.patch(url, json={"name": "New"}).json()["name"] == "New"


# (slug, change) tried in this order by every demo key
_DEMO_ATTEMPTS = [
    ("company-news", {"is_default": False}),
    ("company-news", {"visibility": "team"}),
    ("all-hands", {"visibility": "team"}),
    ("all-hands", {"is_archived": True}),
    ("people-ops", {"visibility": "organization"}),
    ("leadership-circle", {"visibility": "organization"}),
    ("all-hands", {"is_default": True}),
]
# demo key -> (status, error param) of each attempt; the keys that change nothing go first
_DEMO_OUTCOMES = {
    "analyst": [(403, None)] * 7,  # no channels:write
    "writer": [(403, None)] * 7,
    # a people-ops member: not the creator of People Ops, member of nothing
    "starter": [(409, "is_default"), (409, "visibility"), (409, "visibility"),
                (409, "is_archived"), (409, "visibility"), (404, "id"), (409, "is_default")],
    # the comms lead created the organisation channels and is in both private ones
    "admin": [(409, "is_default"), (409, "visibility"), (200, None), (200, None), (404, "id"),
              (200, None), (409, "is_default")],  # All Hands is a team channel by then
}  # fmt: skip


def test_every_demo_key_against_the_organisations_channels(
    service_factory: Any, client_for: ClientFactory
) -> None:
    demo = service_factory(seed="demo")
    keys = {name: client_for(demo, key) for name, key in demo.demo_keys.items()}
    assert set(keys) == set(_DEMO_OUTCOMES)
    ids = {
        c["slug"]: c["id"]
        for name in ("admin", "starter")
        for c in keys[name].get("/channels", params={"limit": 100}).json()["data"]
    }

    def seen_by_everyone() -> set[str]:
        listings = [keys[name].get("/channels", params={"limit": 100}) for name in keys]
        return set.intersection(*({c["slug"] for c in r.json()["data"]} for r in listings))

    organisation = seen_by_everyone()
    assert {"company-news", "all-hands"} <= organisation
    for name, outcomes in _DEMO_OUTCOMES.items():
        got = []
        for (slug, change), (status, _) in zip(_DEMO_ATTEMPTS, outcomes, strict=True):
            response = keys[name].patch(f"/channels/{ids[slug]}", json=change)
            param = None if response.is_success else response.json()["error"]["param"]
            got.append((response.status_code, param))
            if name != "admin":
                assert seen_by_everyone() == organisation, (name, slug, change, status)
        assert got == outcomes, name
    # what the comms lead did: All Hands became a comms team channel and Leadership Circle
    # an organisation one; Company News is still the default, seen by everyone
    assert seen_by_everyone() == organisation - {"all-hands"} | {"leadership-circle"}
    news = keys["writer"].get(f"/channels/{ids['company-news']}").json()
    assert (news["is_default"], news["visibility"]) == (True, "organization")
    circle = keys["analyst"].get(f"/channels/{ids['leadership-circle']}").json()
    assert circle["visibility"] == "organization"


def test_a_taken_slug_never_reveals_an_invisible_channel(
    api: httpx.Client, outsider: httpx.Client, error_of: ErrorOf
) -> None:
    api.post("/channels", json={"name": "Layoffs 2027", "slug": "restructuring",
                                "visibility": "private"})  # fmt: skip
    outsider.post("/channels", json={"name": "Mine", "slug": "mine"})
    hidden = outsider.post("/channels", json={"name": "R", "slug": "restructuring"})
    visible = outsider.post("/channels", json={"name": "M", "slug": "mine"})
    assert error_of(hidden) == error_of(visible) == (409, "conflict", "slug")
    assert hidden.json()["error"]["message"] == visible.json()["error"]["message"]
    assert "Layoffs" not in hidden.text and "chan_" not in hidden.text


# --- ETag and If-Match ------------------------------------------------------------------------


def _post(api: httpx.Client, channel_id: str) -> httpx.Response:
    return api.post("/posts", json={"channel_id": channel_id, "title": "T", "body": "B"})


def _channel(api: httpx.Client, channel_id: str) -> httpx.Response:
    return api.get(f"/channels/{channel_id}")


@pytest.mark.parametrize("kind", ["post", "channel"])
def test_etag_on_every_single_item_response(api: httpx.Client, channel_id: str, kind: str) -> None:
    created = _post(api, channel_id) if kind == "post" else _channel(api, channel_id)
    url = f"/{kind}s/{created.json()['id']}"
    tag = created.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and not tag.startswith("W/")
    assert api.get(url).headers["ETag"] == tag  # nothing changed: same tag
    field: dict[str, Any] = {"title": "New"} if kind == "post" else {"name": "New"}
    patched = api.patch(url, json=field)
    assert patched.headers["ETag"] not in (tag, None)
    assert api.get(url).headers["ETag"] == patched.headers["ETag"]


@pytest.mark.parametrize("kind", ["post", "channel"])
def test_a_stale_if_match_changes_nothing(
    api: httpx.Client, channel_id: str, error_of: ErrorOf, kind: str
) -> None:
    created = _post(api, channel_id) if kind == "post" else _channel(api, channel_id)
    url = f"/{kind}s/{created.json()['id']}"
    first = created.headers["ETag"]
    name = "title" if kind == "post" else "name"
    second = api.patch(url, json={name: "Colleague's edit"}, headers={"If-Match": first})
    assert second.status_code == 200, second.text
    # the other editor still holds the first tag: refused, nothing changes
    stale = api.patch(url, json={name: "My edit"}, headers={"If-Match": first})
    assert error_of(stale) == (409, "conflict", "If-Match")
    assert api.get(url).json()[name] == "Colleague's edit"
    assert error_of(api.delete(url, headers={"If-Match": first})) == (409, "conflict", "If-Match")
    weak = api.patch(url, json={name: "x"}, headers={"If-Match": "W/" + second.headers["ETag"]})
    assert error_of(weak)[2] == "If-Match"
    assert api.get(url).status_code == 200


def test_a_current_if_match_goes_through(api: httpx.Client, channel_id: str) -> None:
    post = _post(api, channel_id)
    url = f"/posts/{post.json()['id']}"
    listed = f'"nope", {post.headers["ETag"]}'
    patched = api.patch(url, json={"tags": ["a"]}, headers={"If-Match": listed})
    assert patched.status_code == 200, patched.text
    assert api.patch(url, json={"tags": ["b"]}, headers={"If-Match": "*"}).status_code == 200
    current = api.get(url).headers["ETag"]
    assert api.delete(url, headers={"If-Match": current}).status_code == 204
    assert api.get(url).status_code == 404


def test_without_if_match_the_last_writer_wins_as_before(
    api: httpx.Client, channel_id: str
) -> None:
    url = f"/posts/{_post(api, channel_id).json()['id']}"
    assert api.patch(url, json={"title": "A"}).status_code == 200
    assert api.patch(url, json={"title": "B"}).json()["title"] == "B"


def test_if_match_on_a_missing_item_is_not_found(api: httpx.Client, error_of: ErrorOf) -> None:
    response = api.patch("/posts/post_missing", json={"title": "x"}, headers={"If-Match": "*"})
    assert error_of(response)[:2] == (404, "not_found")


def test_an_auto_derived_slug_never_reveals_a_hidden_channel(
    api: httpx.Client, outsider: httpx.Client
) -> None:
    hidden = api.post("/channels", json={"name": "People Ops", "visibility": "private"}).json()
    assert hidden["slug"] == "people-ops"
    mine = outsider.post("/channels", json={"name": "People Ops"}).json()
    # not "people-ops-2": the number would say that a channel the key cannot see holds it
    assert mine["slug"].startswith("people-ops-") and mine["slug"] != "people-ops-2"
    assert len(mine["slug"]) == len("people-ops-") + 8
    again = outsider.post("/channels", json={"name": "People Ops"}).json()
    assert again["slug"].startswith("people-ops-") and again["slug"] not in (
        "people-ops-2",
        mine["slug"],
    )
    # where the key sees every holder, the number counts them as before
    assert api.post("/channels", json={"name": "People Ops"}).json()["slug"] == "people-ops-2"

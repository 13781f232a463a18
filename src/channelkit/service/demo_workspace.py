"""The demo workspace: a believable organisation, the same every time for a given UTC day.

Content comes from one seeded random generator; times are laid out over the 180 days before
the current UTC midnight (plus scheduled posts in the coming two weeks), so a demo created
twice on the same day is identical, ids included.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import unicodedata
from dataclasses import dataclass

from channelkit._constants import (
    SERVICE_DEMO_DAYS,
    SERVICE_DEMO_DRAFTS,
    SERVICE_DEMO_POSTS,
    SERVICE_DEMO_SCHEDULED,
    SERVICE_DEMO_SEED,
    SERVICE_EMAIL_DOMAIN,
)
from channelkit._spec import SCOPES
from channelkit.service import demo_content as words
from channelkit.service.engagement import HOURLY, WEEKDAY, weekday
from channelkit.service.posts import engagement_rows
from channelkit.service.timefmt import SECONDS_PER_DAY, day_of, day_start
from channelkit.service.workspace import create_key, fill_once

# name -> (user index, scopes, plan); see docs/api.md
DEMO_KEYS = {
    "admin": (0, SCOPES, "enterprise"),
    "analyst": (20, ("posts:read", "channels:read", "analytics:read"), "business"),
    "starter": (45, SCOPES, "starter"),
    "writer": (3, ("posts:read", "posts:write", "channels:read"), "business"),
}


@dataclass(frozen=True)
class _Channel:
    seq: int
    id: str
    audience: int
    created_at: int
    writers: list[int]  # user indexes allowed to post there
    weight: int
    tags: tuple[str, ...]
    archived: bool


@dataclass
class _Post:
    created_at: int
    channel: int
    author: int
    title: str
    body: str
    priority: str
    tags: list[str]
    status: str
    published_at: int | None
    scheduled_at: int | None
    cover: str | None
    updated_at: int = 0


def seed_demo(con: sqlite3.Connection, now: float) -> dict[str, str]:
    """Fill an empty workspace (once) and return fresh keys for the demo users."""
    fill_once(con, "demo", _build, now)
    handles = [r[0] for r in con.execute("SELECT handle FROM users ORDER BY seq")]
    return {
        name: create_key(con, user=handles[index], team=None, scopes=scopes, plan=plan, now=now)
        for name, (index, scopes, plan) in DEMO_KEYS.items()
    }


def _build(con: sqlite3.Connection, now: float) -> None:
    rng = random.Random(SERVICE_DEMO_SEED)
    anchor = day_start(day_of(now))
    start = anchor - SERVICE_DEMO_DAYS * SECONDS_PER_DAY

    def ident(prefix: str) -> str:
        return f"{prefix}_{rng.getrandbits(64):016x}"

    team_seq = {}
    for handle, name in words.TEAMS:
        cur = con.execute(
            "INSERT INTO teams (id, handle, name) VALUES (?, ?, ?)", (ident("team"), handle, name)
        )
        team_seq[handle] = int(cur.lastrowid or 0)

    # 50 people: 10 in comms, 28 in engineering, 12 in people ops
    team_of = ["comms"] * 10 + ["engineering"] * 28 + ["people"] * 12
    users: list[tuple[int, str]] = []  # (seq, team)
    for i, team in enumerate(team_of):
        first = words.FIRST_NAMES[i]
        last = words.LAST_NAMES[(i * 7) % len(words.LAST_NAMES)]
        handle = _ascii(f"{first}.{last}")
        cur = con.execute(
            "INSERT INTO users (id, handle, name, email, team_seq) VALUES (?,?,?,?,?)",
            (ident("user"), handle, f"{first} {last}", f"{handle}@{SERVICE_EMAIL_DOMAIN}",
             team_seq[team]),
        )  # fmt: skip
        users.append((int(cur.lastrowid or 0), team))

    channels: list[_Channel] = []
    for i, (slug, name, description, visibility, owner, audience, weight, tags) in enumerate(
        words.CHANNELS
    ):
        created = start - (40 - i) * SECONDS_PER_DAY
        channel_id = ident("chan")
        archived = slug == "office-move-2026"
        cur = con.execute(
            "INSERT INTO channels (id, name, slug, description, visibility, team_seq,"
            " is_default, is_archived, audience, created_at, updated_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (channel_id, name, slug, description, visibility,
             None if owner is None else team_seq[owner], int(i == 0), int(archived), audience,
             created, start + 120 * SECONDS_PER_DAY if archived else created),
        )  # fmt: skip
        seq = int(cur.lastrowid or 0)
        if visibility == "private":
            members = (
                [0, 1, 2, 10, 11, 38]
                if slug == "leadership-circle"
                else [0, 10, 12, 13, 14, 15, 16, 17]
            )
            writers = members
        elif owner is not None:
            writers = [k for k, (_, t) in enumerate(users) if t == owner]
            members = writers[:1]  # created by the team's first member
        else:
            writers = list(range(len(users)))
            members = [0]  # organisation channels created by the comms lead
        # the creator is a channel's first member: only members may change who sees it
        con.executemany(
            "INSERT INTO channel_members VALUES (?, ?)", [(seq, users[m][0]) for m in members]
        )
        channels.append(
            _Channel(seq, channel_id, audience, created, writers, weight, tags, archived)
        )

    posts = [_published(rng, channels, users, start, anchor) for _ in range(SERVICE_DEMO_POSTS)]
    for _ in range(SERVICE_DEMO_SCHEDULED):
        post = _published(rng, channels, users, anchor - 3 * SECONDS_PER_DAY, anchor)
        post.scheduled_at = anchor + rng.randint(1, 14) * SECONDS_PER_DAY + _office_second(rng)
        post.status, post.published_at, post.updated_at = "scheduled", None, post.created_at
        posts.append(post)
    for _ in range(SERVICE_DEMO_DRAFTS):
        post = _published(rng, channels, users, anchor - 10 * SECONDS_PER_DAY, anchor)
        post.status, post.published_at, post.updated_at = "draft", None, post.created_at
        posts.append(post)
    posts.sort(key=lambda p: p.created_at)

    post_rows, tag_rows, daily = [], [], []
    for seq, post in enumerate(posts, start=_next_seq(con)):
        channel = channels[post.channel]
        post_id = ident("post")
        post_rows.append(
            (seq, post_id, channel.seq, users[post.author][0], post.title, post.body,
             post.priority, json.dumps(post.tags, ensure_ascii=False), post.status,
             post.published_at, post.scheduled_at, post.cover, post.created_at, post.updated_at)
        )  # fmt: skip
        tag_rows += [(tag, seq) for tag in post.tags]
        when = post.published_at or post.scheduled_at
        if when is not None:
            daily += engagement_rows(
                seq, post_id, when, post.priority, post.tags, post.cover is not None,
                channel.id, channel.audience, channel.created_at,
            )  # fmt: skip
    con.executemany(
        "INSERT INTO posts (seq, id, channel_seq, author_seq, title, body, priority, tags,"
        " status, published_at, scheduled_at, cover_image_url, created_at, updated_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        post_rows,
    )
    con.executemany("INSERT INTO post_tags VALUES (?, ?)", tag_rows)
    con.executemany("INSERT INTO post_daily VALUES (?,?,?,?,?,?,?,?)", daily)


def _published(
    rng: random.Random, channels: list[_Channel], users: list[tuple[int, str]], lo: int, hi: int
) -> _Post:
    """A published post at a plausible moment in [lo, hi)."""
    while True:
        day = rng.randrange(day_of(lo), day_of(hi - 1) + 1)
        if rng.random() < WEEKDAY[weekday(day)]:
            break
    when = min(hi - 1, max(lo, day_start(day) + _office_second(rng)))
    archived_cutoff = day_of(hi) - 60
    while True:
        index = rng.choices(range(len(channels)), weights=[c.weight for c in channels])[0]
        if not channels[index].archived or day < archived_cutoff:
            break
    channel = channels[index]
    writers = channel.writers
    tags = rng.sample(channel.tags, k=rng.choice((1, 1, 2, 2, 3)))
    urgent = {"outage", "incident", "security"} & set(tags)
    roll = rng.random()
    priority = (
        "urgent"
        if urgent and roll < 0.3
        else "high"
        if roll < 0.15 + (0.1 if urgent else 0)
        else "normal"
    )
    post = _Post(
        created_at=when,
        channel=index,
        author=rng.choice(writers),
        title=_title(rng, tags[0]),
        body=_body(rng),
        priority=priority,
        tags=list(tags),
        status="published",
        published_at=when,
        scheduled_at=None,
        cover=f"https://images.example.com/covers/{rng.randint(1, 60)}.jpg"
        if rng.random() < 0.3
        else None,
        updated_at=when,
    )
    if day < day_of(hi) - 90 and rng.random() < 0.04:
        post.status = "archived"
        post.updated_at = when + rng.randint(30, 60) * SECONDS_PER_DAY
    return post


def _office_second(rng: random.Random) -> int:
    hour = rng.choices(range(24), weights=HOURLY)[0]
    return hour * 3600 + rng.randrange(3600)


def _title(rng: random.Random, tag: str) -> str:
    template = rng.choice(words.TITLES.get(tag, ("Update on {topic}",)))
    return re.sub(r"\{(\w+)\}", lambda m: rng.choice(words.FILL[m.group(1)]), template)


def _body(rng: random.Random) -> str:
    parts = rng.sample(words.PARAGRAPHS, k=rng.randint(1, 3))
    if rng.random() < 0.5:
        parts.append("\n".join(f"- {b}" for b in rng.sample(words.BULLETS, k=rng.randint(2, 4))))
    if rng.random() < 0.3:
        parts.insert(0, "## What is changing")
    return "\n\n".join(parts)


def _ascii(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9.]+", "", plain)


def _next_seq(con: sqlite3.Connection) -> int:
    return int(con.execute("SELECT coalesce(max(seq), 0) + 1 FROM posts").fetchone()[0])

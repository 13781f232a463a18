"""The steady workspace: engagement that does not change from week to week.

Three channels whose audience stopped growing long ago each publish a post every hour of
every day for `SERVICE_STEADY_DAYS` days before the current UTC midnight; each post gathers
its readers over several days by the service's reach model (`engagement.post_daily_rows`).
The model's noise repeats every `SERVICE_STEADY_CYCLE_DAYS` days (it is drawn from the
post's place in the cycle, not its id), so every period's numbers are ones its previous
periods have already shown: any change a metric reports between two periods is the noise
of a few weeks or the metric's own bias, which is what the tests of fair comparisons look
for (`channelkit serve --seed steady`).
"""

from __future__ import annotations

import json
import random
import sqlite3

from channelkit._constants import SERVICE_EMAIL_DOMAIN
from channelkit._spec import SCOPES
from channelkit.service.posts import engagement_rows
from channelkit.service.timefmt import SECONDS_PER_DAY, day_of, day_start
from channelkit.service.workspace import create_key, fill_once

SERVICE_STEADY_DAYS = 252  # 36 weeks: the usual range of the default 28 days has 8 periods
SERVICE_STEADY_CYCLE_DAYS = 35  # five weeks: the weekdays line up from cycle to cycle
SERVICE_STEADY_SEED = 20261125
# slug, name, audience
_CHANNELS = (
    ("all-hands", "All Hands", 1_200),
    ("engineering", "Engineering", 800),
    ("people", "People", 1_000),
)


def seed_steady(con: sqlite3.Connection, now: float) -> dict[str, str]:
    """Fill an empty workspace (once) and return an admin key as {"admin": key}."""
    fill_once(con, "steady", _build, now)
    handle = con.execute("SELECT handle FROM users ORDER BY seq LIMIT 1").fetchone()[0]
    return {"admin": create_key(con, user=handle, team=None, scopes=SCOPES, plan="enterprise",
                                now=now)}  # fmt: skip


def _build(con: sqlite3.Connection, now: float) -> None:
    rng = random.Random(SERVICE_STEADY_SEED)
    anchor = day_start(day_of(now))
    start = anchor - SERVICE_STEADY_DAYS * SECONDS_PER_DAY
    created = start - 400 * SECONDS_PER_DAY  # the audience has stopped growing

    def ident(prefix: str) -> str:
        return f"{prefix}_{rng.getrandbits(64):016x}"

    cur = con.execute(
        "INSERT INTO users (id, handle, name, email, team_seq) VALUES (?,?,?,?,NULL)",
        (ident("user"), "steady.writer", "Steady Writer", f"steady.writer@{SERVICE_EMAIL_DOMAIN}"),
    )
    author = int(cur.lastrowid or 0)
    post_rows, daily = [], []
    seq = 1 + (con.execute("SELECT coalesce(max(seq), 0) FROM posts").fetchone()[0])
    for i, (slug, name, audience) in enumerate(_CHANNELS):
        channel_id = ident("chan")
        cur = con.execute(
            "INSERT INTO channels (id, name, slug, description, visibility, team_seq,"
            " is_default, is_archived, audience, created_at, updated_at)"
            " VALUES (?,?,?,?,'organization',NULL,?,0,?,?,?)",
            (channel_id, name, slug, f"{name} updates", int(i == 0), audience, created, created),
        )
        channel_seq = int(cur.lastrowid or 0)
        for day in range(day_of(start), day_of(anchor)):
            for hour in range(24):
                when = day_start(day) + hour * 3600 + 15 * 60
                post_id = ident("post")
                post_rows.append(
                    (seq, post_id, channel_seq, author, f"{name} update {day}-{hour}",
                     "The usual update.", "normal", json.dumps(["update"]), "published",
                     when, None, None, when, when)
                )  # fmt: skip
                noise = f"steady/{slug}/{day % SERVICE_STEADY_CYCLE_DAYS}/{hour}"
                daily += engagement_rows(
                    seq, noise, when, "normal", ["update"], False, channel_id, audience, created
                )
                seq += 1
    con.executemany(
        "INSERT INTO posts (seq, id, channel_seq, author_seq, title, body, priority, tags,"
        " status, published_at, scheduled_at, cover_image_url, created_at, updated_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        post_rows,
    )
    con.executemany("INSERT INTO post_tags VALUES (?, ?)", [("update", r[0]) for r in post_rows])
    con.executemany("INSERT INTO post_daily VALUES (?,?,?,?,?,?,?,?)", daily)

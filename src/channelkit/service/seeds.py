"""The workspaces `channelkit serve --seed NAME` can fill an empty database with."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from channelkit.service.demo_workspace import seed_demo
from channelkit.service.steady import seed_steady

# name -> a function filling an empty workspace (once) and returning fresh keys by name
SEEDS: dict[str, Callable[[sqlite3.Connection, float], dict[str, str]]] = {
    "demo": seed_demo,
    "steady": seed_steady,
}

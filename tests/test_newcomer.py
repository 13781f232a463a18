"""The first hour: newcomers' mistakes get one message naming the flag and the fix.

One table of mistakes (wrong or missing key, odd base URLs, a service that is down or
speaks plain HTTP, typos in commands and options, bad dates, unknown channels, missing
files, a report before any sync, a key without the scope), each run as the command line
runs it, each checked for its exit code, the flag it names, the fix it suggests, and for
what must never show: a traceback, or a Python keyword (`only=`, `api_key=...`).
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit._urls import suggest_base_url
from channelkit.cli import main
from channelkit.service import LocalService


@pytest.fixture(autouse=True)
def _short_connection_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused connection is retried for a minute by default (a deploy may take that long);
    # the "service not running" cases here need the message, not the minute.
    monkeypatch.setenv("CHANNELKIT_CONNECT_RETRY_SECONDS", "1")


GOOD_ROW = "all-hands,Quarterly update,Numbers and plans,2030-12-02 09:00,Europe/Berlin\n"
HEADER = "channel,title,body,scheduled_at,timezone\n"


@dataclass
class Mistake:
    id: str
    args: list[str]
    exit_code: int
    says: list[str]  # the flag (or file, or row) named, and the fix
    env: dict[str, str] = field(default_factory=dict)  # "{url}", "{analyst}", ... filled in
    files: dict[str, str] = field(default_factory=dict)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


LIVE = {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "{admin}"}
POSTS = {"posts.csv": HEADER + GOOD_ROW}

MISTAKES = [
    # --- typos in commands and options ---
    Mistake("command typo sync", ["synk"], 2, ["no command 'synk'", "did you mean 'sync'?"]),
    Mistake("command typo report", ["reprot"], 2, ["did you mean 'report'?"]),
    Mistake("command typo schedule", ["shedule"], 2, ["did you mean 'schedule'?"]),
    Mistake("option typo sync", ["sync", "--sinc", "2026-11-01"], 2, ["'--sinc'", "'--since'"]),
    Mistake(
        "option typo report",
        ["report", "--perod", "7d", "--out", "r.html"],
        2,
        ["Did you mean '--period'?"],
    ),
    Mistake(
        "option typo schedule", ["schedule", "posts.csv", "--submitt"], 2, ["'--submit'"], {}, POSTS
    ),
    Mistake("seed typo", ["serve", "--seed", "demoo"], 2, ["'--seed'", "'demo'"]),
    Mistake("keys without user", ["keys", "create"], 2, ["'--user'"]),
    Mistake(
        "scope typo",
        ["keys", "create", "--db", "k.sqlite", "--user", "ana", "--scopes", "posts:reed"],
        2,
        ["'--scopes'", "did you mean 'posts:read'?"],
    ),
    Mistake(
        "port taken",
        ["serve", "--db", ":memory:", "--port", "{taken}"],
        1,
        ["--port", "--port 0 picks a free one"],
    ),
    # --- bad dates, periods, zones ---
    Mistake(
        "impossible month",
        ["sync", "--since", "2026-13-01"],
        2,
        ["--since: ", "month must be in 1..12", "YYYY-MM-DD, e.g. 2026-11-01"],
    ),
    Mistake("word for a date", ["sync", "--since", "yesterday"], 2, ["--since: ", "YYYY-MM-DD"]),
    Mistake(
        "timestamp without offset",
        ["sync", "--since", "2026-11-01T10:00:00"],
        2,
        ["--since: ", "2026-11-01T10:00:00Z"],
    ),
    Mistake(
        "report impossible day",
        ["report", "--since", "2026-02-30", "--out", "r.html"],
        2,
        ["--since", "2026-02-30"],
    ),
    Mistake(
        "until before since",
        ["report", "--since", "2026-11-10", "--until", "2026-11-01", "--out", "r.html"],
        2,
        ["--until", "--since"],
    ),
    Mistake("bad period", ["report", "--period", "7x", "--out", "r.html"], 2, ["--period", "7d"]),
    Mistake(
        "bad max age", ["report", "--max-age", "soon", "--out", "r.html"], 2, ["--max-age", "26h"]
    ),
    Mistake(
        "zone typo report",
        ["report", "--tz", "Europe/Berln", "--out", "r.html"],
        2,
        ["--tz", "Europe/Berlin"],
    ),
    Mistake(
        "zone typo in CHANNELKIT_TZ",
        ["schedule", "posts.csv"],
        2,
        ["--tz", "CHANNELKIT_TZ", "did you mean 'Europe/Berlin'?"],
        {"CHANNELKIT_TZ": "Europe/Berln"},
        POSTS,
    ),
    Mistake(
        "zone that does not exist",
        ["schedule", "posts.csv", "--tz", "Mars/Base"],
        2,
        ["--tz", "IANA name such as 'Europe/Berlin'"],
        {},
        POSTS,
    ),
    # --- configuration: URL and key ---
    Mistake("no base URL", ["sync"], 2, ["--base-url", "export CHANNELKIT_BASE_URL=http://"]),
    Mistake(
        "no key",
        ["sync"],
        2,
        ["--api-key", "CHANNELKIT_API_KEY", "channelkit serve --seed demo"],
        {"CHANNELKIT_BASE_URL": "{url}"},
    ),
    Mistake(
        "base URL without version",
        ["sync"],
        2,
        ["--base-url", "must end in the API version /v1", "use http://127.0.0.1:8000/v1"],
        {"CHANNELKIT_BASE_URL": "http://127.0.0.1:8000", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "base URL with another version",
        ["sync"],
        2,
        ["--base-url", "use https://api.example.com/v1"],
        {"CHANNELKIT_BASE_URL": "https://api.example.com/v2", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "base URL of an endpoint",
        ["sync"],
        2,
        ["--base-url", "use http://127.0.0.1:8000/v1"],
        {"CHANNELKIT_BASE_URL": "http://127.0.0.1:8000/v1/posts", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "base URL without scheme",
        ["sync"],
        2,
        ["--base-url", "not an http:// or https:// URL"],
        {"CHANNELKIT_BASE_URL": "127.0.0.1:8000/v1", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "key with a space",
        ["sync"],
        2,
        ["--api-key", "copy it again"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "ck_abc def"},
    ),
    Mistake(
        "bad option reported before missing configuration",
        ["sync", "--only", "posts,comments"],
        2,
        ["--only: ", "'comments' is not a part to sync", "channels, posts, analytics"],
    ),
    Mistake(
        "report --sync without key",
        ["report", "--sync", "--out", "r.html"],
        2,
        ["--api-key", "for --sync"],
        {"CHANNELKIT_BASE_URL": "{url}"},
    ),
    # --- the service: down, TLS mismatch, wrong key, missing scope ---
    Mistake(
        "service not running",
        ["sync", "--db", "w.duckdb"],
        1,
        ["is the service running?", "channelkit serve", "w.duckdb was not created"],
        {"CHANNELKIT_BASE_URL": "http://127.0.0.1:{down}/v1", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "https to a plain HTTP service",
        ["sync", "--db", "w.duckdb"],
        1,
        ["use http:// instead of https://"],
        {"CHANNELKIT_BASE_URL": "{tls_url}", "CHANNELKIT_API_KEY": "k"},
    ),
    Mistake(
        "wrong key sync",
        ["sync", "--db", "w.duckdb"],
        1,
        ["401", "fix CHANNELKIT_API_KEY", "nothing was committed and w.duckdb was not created"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "ck_not-a-real-key"},
    ),
    Mistake(
        "wrong key schedule",
        ["schedule", "posts.csv"],
        1,
        ["nothing was sent", "fix CHANNELKIT_API_KEY"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "ck_not-a-real-key"},
        POSTS,
    ),
    Mistake(
        "dry run with a key that may not publish",
        ["schedule", "posts.csv"],
        1,
        ["lacks the posts:write scope", "may not create or change posts", "writer"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "{analyst}"},
        POSTS,
    ),
    Mistake(
        "submit with a key that may not publish",
        ["schedule", "posts.csv", "--submit"],
        1,
        ["posts:write"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "{analyst}"},
        POSTS,
    ),
    Mistake(
        "sync with a key without analytics",
        ["sync", "--db", "w.duckdb"],
        0,
        ["lacks the analytics:read scope"],
        {"CHANNELKIT_BASE_URL": "{url}", "CHANNELKIT_API_KEY": "{writer}"},
    ),
    # --- sync options ---
    Mistake(
        "negative lookback",
        ["sync", "--lookback-days", "-1"],
        2,
        ["'--lookback-days': '-1' is not a whole number of days from 0"],
    ),
    Mistake(
        "page too large",
        ["sync", "--page-limit", "1000"],
        2,
        ["--page-limit: ", "more than the service allows (100)"],
    ),
    Mistake(
        "warehouse in a missing folder",
        ["sync", "--db", "no/such/folder/w.duckdb"],
        2,
        ["--db", "does not exist", "create it"],
        LIVE,
    ),
    # --- files ---
    Mistake(
        "spreadsheet that does not exist",
        ["schedule", "missing.csv"],
        2,
        ["missing.csv: no such file", "channelkit template missing.csv"],
    ),
    Mistake(
        "results file of an unknown type",
        ["schedule", "posts.csv", "--results", "out.txt"],
        2,
        ["--results", "must end in .xlsx or .csv", "out.xlsx"],
        {},
        POSTS,
    ),
    Mistake(
        "failed-rows in a missing folder",
        ["schedule", "posts.csv", "--failed-rows", "nope/fix.csv"],
        2,
        ["--failed-rows", "does not exist"],
        {},
        POSTS,
    ),
    Mistake("template of an unknown type", ["template", "posts.json"], 2, [".xlsx or .csv"]),
    Mistake(
        "template over an existing file",
        ["template", "posts.csv"],
        2,
        ["already exists", "--force"],
        {},
        POSTS,
    ),
    Mistake(
        "report template that does not exist",
        ["report", "--template", "mine.j2", "--out", "r.html"],
        2,
        ["'--template'", "does not exist"],
    ),
    Mistake(
        "allow-partial without submit",
        ["schedule", "posts.csv", "--allow-partial"],
        2,
        ["--allow-partial", "add --submit"],
        {},
        POSTS,
    ),
    Mistake(
        "the template's example rows",
        ["schedule", "template.csv", "--submit"],
        1,
        [
            'row 2 ("[EXAMPLE] Town hall on Thursday", all-hands): title: this is an example row',
            "replace it with your own post",
        ],
        LIVE,
        {"template.csv": "@template"},
    ),
    # --- unknown channels and the warehouse ---
    Mistake(
        "unknown channel in a row",
        ["schedule", "posts.csv"],
        1,
        [
            'row 2 ("Quarterly update", all-hans): channel',
            "did you mean 'all-hands'?",
            "[channel = 'all-hans']",
        ],
        LIVE,
        {"posts.csv": HEADER + GOOD_ROW.replace("all-hands", "all-hans")},
    ),
    Mistake(
        "report before any sync",
        ["report", "--db", "warehouse.duckdb", "--out", "r.html"],
        1,
        ["warehouse.duckdb", "channelkit sync"],
    ),
    Mistake(
        "unknown channel in a report",
        ["report", "--db", "{warehouse}", "--channel", "All-Hnds", "--out", "r.html"],
        2,
        ["--channel", "did you mean 'all-hands'?", "choices: all-hands, "],
    ),
]


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, demo_service: LocalService) -> Path:
    from channelkit.client import Client
    from channelkit.sync import run_sync

    path = tmp_path_factory.mktemp("newcomer") / "warehouse.duckdb"
    with Client(base_url=demo_service.base_url, api_key=demo_service.demo_keys["admin"]) as c:
        assert run_sync(c, path, progress=False).completed
    return path


def _fill(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m[1], m[0]), text)


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_newcomer_mistake_names_the_flag_and_the_fix(
    mistake: Mistake,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    demo_service: LocalService,
    synced: Path,
) -> None:
    values = {
        "url": demo_service.base_url,
        "tls_url": demo_service.base_url.replace("http://", "https://"),
        "down": str(_free_port()),
        "taken": demo_service.base_url.rsplit(":", 1)[1].split("/")[0],
        "warehouse": str(synced),
        **demo_service.demo_keys,
    }
    for name in ("CHANNELKIT_BASE_URL", "CHANNELKIT_API_KEY", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    for name, content in mistake.files.items():
        if content == "@template":
            assert CliRunner().invoke(main, ["template", name]).exit_code == 0
        else:
            (tmp_path / name).write_text(content, encoding="utf-8")
    env = {name: _fill(value, values) for name, value in mistake.env.items()}
    result = CliRunner().invoke(main, [_fill(arg, values) for arg in mistake.args], env=env)
    output = result.output
    assert result.exit_code == mistake.exit_code, output
    assert isinstance(result.exception, SystemExit | None), output  # no uncaught error
    for words in mistake.says:
        assert words in output, f"{words!r} not in:\n{output}"
    assert "Traceback" not in output
    assert not re.search(r"\b(only|since|api_key|base_url|lookback_days)=", output), output
    for key in demo_service.demo_keys.values():
        assert key not in output
    if "w.duckdb was not created" in " ".join(mistake.says):
        assert not (tmp_path / "w.duckdb").exists()


def test_at_least_forty_mistakes() -> None:
    assert len(MISTAKES) >= 40
    assert len({m.id for m in MISTAKES}) == len(MISTAKES)


@pytest.mark.parametrize(
    ("url", "meant"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1"),
        ("https://api.example.com/v2", "https://api.example.com/v1"),
        ("https://api.example.com/v2/", "https://api.example.com/v1"),
        ("https://example.com/pcs/v0/posts", "https://example.com/pcs/v1"),
        ("https://example.com/pcs", "https://example.com/pcs/v1"),
        ("http://127.0.0.1:8000/v1", None),
        ("http://127.0.0.1:8000/v1/", None),
    ],
)
def test_base_url_suggestions_replace_a_wrong_version(url: str, meant: str | None) -> None:
    assert suggest_base_url(url) == meant


def test_readme_publishing_block_sends_nothing_until_rows_are_yours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: LocalService, admin_key: str
) -> None:
    """The README's template → dry run → --submit, word for word, then with rows of one's own."""
    from channelkit.client import Client

    with Client(base_url=service.base_url, api_key=admin_key) as client:
        for name in ("All hands", "Company news"):
            client.channels.create(name=name)

        def posts() -> int:
            return sum(1 for _ in client.posts.list())

        monkeypatch.chdir(tmp_path)
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": admin_key}
        run: Callable[..., object] = CliRunner().invoke
        assert run(main, ["template", "posts.xlsx"]).exit_code == 0  # type: ignore[attr-defined]
        for args in (
            ["schedule", "posts.xlsx", "--tz", "Europe/Berlin"],
            ["schedule", "posts.xlsx", "--tz", "Europe/Berlin", "--submit", "--results",
             "results.xlsx"],
        ):  # fmt: skip
            result = CliRunner().invoke(main, args, env=env)
            assert result.exit_code == 1 and "example row" in result.output, result.output
        assert posts() == 0
        assert (tmp_path / "results.xlsx").exists()  # asked for, so written: reasons per row

        from openpyxl import load_workbook

        book = load_workbook(tmp_path / "posts.xlsx")
        for (title,) in book["posts"].iter_rows(min_row=2, min_col=2, max_col=2):
            title.value = str(title.value).replace("[EXAMPLE] ", "Our own: ")
        book.save(tmp_path / "posts.xlsx")
        sent = CliRunner().invoke(
            main, ["schedule", "posts.xlsx", "--tz", "Europe/Berlin", "--submit"], env=env
        )
        assert sent.exit_code == 0, sent.output
        assert posts() == 2


def test_hints_for_a_service_that_is_down_or_speaks_the_other_protocol() -> None:
    from channelkit._cli import hint_for
    from channelkit.errors import APIConnectionError, BadRequestError

    refused = APIConnectionError("connection failed: ConnectError: [Errno 111] Connection refused")
    assert "channelkit serve" in (hint_for(refused) or "")
    tls = APIConnectionError("connection failed: ConnectError: [SSL: WRONG_VERSION_NUMBER] ...")
    assert "use http:// instead of https://" in (hint_for(tls) or "")
    plain = BadRequestError(
        "400 error: unexpected error body '<html>The plain HTTP request was sent to HTTPS port'",
        status=400,
    )
    assert "use https:// instead of http://" in (hint_for(plain) or "")
    dropped = APIConnectionError("connection failed: RemoteProtocolError: Server disconnected")
    assert "https://" in (hint_for(dropped) or "")
    assert hint_for(APIConnectionError("connection failed: ReadTimeout")) is None

"""`channelkit keys create|revoke` and `channelkit serve` from the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner

from channelkit.cli import main


def test_keys_create_prints_only_the_key(tmp_path: Path, service_factory: Any) -> None:
    db = str(tmp_path / "svc.sqlite")
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "keys",
            "create",
            "--db",
            db,
            "--user",
            "ana",
            "--team",
            "comms",
            "--scopes",
            "posts:read,channels:read",
            "--plan",
            "business",
        ],
    )
    assert result.exit_code == 0, result.output
    key = result.stdout.strip()
    assert key.startswith("ck_") and "\n" not in key
    assert key not in Path(db).read_bytes().decode("latin-1")
    service = service_factory(db=db)
    headers = {"Authorization": f"Bearer {key}"}
    ok = httpx.get(f"{service.base_url}/channels", headers=headers)
    assert ok.status_code == 200 and ok.headers["X-RateLimit-Limit"] == "300"
    assert httpx.post(f"{service.base_url}/channels", headers=headers, json={}).status_code == 403
    service.stop()
    revoked = runner.invoke(main, ["keys", "revoke", "--db", db], input=key + "\n")
    assert revoked.exit_code == 0, revoked.output
    again = runner.invoke(main, ["keys", "revoke", "--db", db, key])
    assert again.exit_code == 1 and "unknown or already revoked" in again.output
    assert key not in again.output


def test_keys_create_rejects_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "svc.sqlite")
    bad_scope = runner.invoke(main, ["keys", "create", "--db", db, "--user", "a", "--scopes", "x"])
    assert bad_scope.exit_code == 2 and "'x' is not a scope" in bad_scope.output  # a bad flag
    bad_plan = runner.invoke(main, ["keys", "create", "--db", db, "--user", "a", "--plan", "gold"])
    assert bad_plan.exit_code == 2
    no_dir = runner.invoke(main, ["keys", "create", "--db", "/nonexistent/x.db", "--user", "a"])
    assert no_dir.exit_code == 1 and "does not exist" in no_dir.output
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_text("not a database at all" * 100)
    not_db = runner.invoke(main, ["keys", "create", "--db", str(foreign), "--user", "a"])
    assert not_db.exit_code == 1 and "Traceback" not in not_db.output


def test_serve_seeds_the_demo_and_prints_its_keys(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    command = [str(Path(sys.executable).parent / "channelkit"), "serve", "--seed", "demo",
               "--port", "0", "--db", str(db)]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening at http://127.0.0.1:" in line, line + proc.stderr.read()
        base_url = line.split()[-1]
        assert proc.stdout.readline().startswith("demo workspace created in ")
        assert proc.stdout.readline().split()[:2] == ["name", "may"]
        keys = {}
        for _ in range(4):
            words = proc.stdout.readline().split()
            keys[words[0]] = words[-1]
        assert set(keys) == {"admin", "analyst", "starter", "writer"}
        headers = {"Authorization": f"Bearer {keys['analyst']}"}
        page = httpx.get(f"{base_url}/posts", params={"limit": 100}, headers=headers)
        assert page.status_code == 200 and len(page.json()["data"]) == 100
        assert httpx.get(f"{base_url}/analytics/posts", headers=headers).json()["data"]
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0  # SIGTERM stops it cleanly
    assert proc.stderr is not None
    logged = proc.stderr.read()
    stored = db.read_bytes().decode("latin-1")
    for key in keys.values():
        assert key not in logged and key not in stored

"""The contract module: pure rules every layer shares, and the table's own consistency."""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import get_args

import pytest

from channelkit import _spec
from channelkit.service.posts import FILTER_CLAUSES


def test_enums_are_their_literals() -> None:
    assert _spec.PRIORITIES == get_args(_spec.Priority) == ("normal", "high", "urgent")
    assert _spec.POST_STATUSES == ("draft", "scheduled", "published", "archived")
    assert _spec.VISIBILITIES == ("organization", "team", "private")
    assert set(_spec.PLAN_LIMITS) == set(_spec.PLANS)
    assert set(_spec.POST_TRANSITIONS) == set(_spec.POST_STATUSES)


def test_operations_are_unique_and_use_every_scope() -> None:
    keys = [(op.method, op.path) for op in _spec.OPERATIONS]
    assert len(keys) == len(set(keys))
    assert {op.scope for op in _spec.OPERATIONS} == set(_spec.SCOPES)
    for op in _spec.OPERATIONS:
        assert set(op.query) <= set(_spec.QUERY_PARAMETERS), op.id
        assert _spec.operation(op.id) is op
    assert set(FILTER_CLAUSES) == set(_spec.POST_FILTERS)


def test_the_contract_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(_spec.__file__).read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not {name for name in imported if name.split(".")[0] in ("channelkit", "pydantic")}


@pytest.mark.parametrize(
    ("rule", "value", "reason"),
    [
        ("title", "", "1..200"),
        ("title", "x" * 201, "1..200"),
        ("title", "a\x00", "U+0000"),
        ("title", "a\nb", "U+000A"),
        ("title", "\x1b[0m", "U+001B"),
        ("title", "a\x9b", "U+009B"),
        ("title", "\u200b\u2060\ufeff", "blank"),
        ("title", "\u202e \u2066", "blank"),
        ("tag", "x" * 51, "1..50"),
        ("name", "\t", "U+0009"),
        ("body", "\u200b\n", "blank"),
        ("description", "a\x00", "U+0000"),
        ("description", " ", "blank"),
    ],
)
def test_text_problems(rule: str, value: str, reason: str) -> None:
    problem = _spec.text_problem(rule, value)
    assert problem is not None and reason in problem


@pytest.mark.parametrize(
    ("rule", "value"),
    [
        ("title", "Quarterly results \u2014 \U0001f389"),
        ("title", "\u05e9\u05dc\u05d5\u05dd\u200f!"),
        ("body", "line 1\n\tline 2"),
        ("description", ""),
        ("description", "a\nb"),
        ("tag", "x" * 50),
    ],
)
def test_text_accepted(rule: str, value: str) -> None:
    assert _spec.text_problem(rule, value) is None


@pytest.mark.parametrize(
    "url", ["http://:80/x", "ftp://host/x", "http://host/a b", "http://h/\tx", "http://h:99999/",
            "https://h/" + "x" * 2048, "/relative"],
)  # fmt: skip
def test_bad_urls(url: str) -> None:
    assert _spec.url_problem(url) is not None


def test_good_url() -> None:
    assert _spec.url_problem("HTTPS://cdn.example.com:8443/a.png?x=1#y") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-21", "2026-11-21T00:00:00+00:00"),
        ("2026-11-21T09:30:00.999999999+01:00", "2026-11-21T08:30:00+00:00"),
        ("2026-11-21t09:30:00z", "2026-11-21T09:30:00+00:00"),
        ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59+00:00"),
        ("9999-12-31T23:59:59+18:00", "9999-12-31T05:59:59+00:00"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:00"),
        ("0001-01-01T17:59:00-18:00", "0001-01-02T11:59:00+00:00"),
    ],
)
def test_instants(text: str, expected: str) -> None:
    seconds = _spec.parse_instant(text)
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)
    assert moment.isoformat() == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("9999-12-31T23:59:59-14:00", "outside"),
        ("0001-01-01T00:00:00+00:01", "outside"),
        ("2026-11-21T09:30:00+18:01", "at most 18:00"),
        ("2026-11-21T09:30:00+24:00", "at most 18:00"),
        ("2026-11-21T09:30:00", "no UTC offset"),
        ("0000-00-00", "RFC 3339"),
        ("2026-02-30", "not a valid date"),
        ("2026-11-21T24:00:00Z", "RFC 3339"),
    ],
)
def test_bad_instants(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        _spec.parse_instant(text)


def test_to_instant_truncates_and_refuses() -> None:
    moment = datetime(2026, 1, 1, 0, 0, 0, 999_999, tzinfo=timezone(timedelta(hours=-18)))
    assert _spec.to_instant(moment) == _spec.parse_instant("2026-01-01T18:00:00Z")
    with pytest.raises(ValueError, match="no UTC offset"):
        _spec.to_instant(datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="outside"):
        _spec.to_instant(datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-2))))


def test_the_request_pattern_refuses_what_the_parser_refuses() -> None:
    import re

    pattern = re.compile(_spec.REQUEST_INSTANT_PATTERN)
    for text in ("0000-01-01", "2026-13-01", "2026-00-10", "2026-01-32", "2026-01-01T24:00:00Z",
                 "2026-01-01T10:00:00+18:30", "2026-01-01T10:00:00+19:00"):  # fmt: skip
        assert not pattern.match(text), text
    for text in ("0001-01-01", "9999-12-31T23:59:59.5-18:00", "2026-06-30T12:00:00+05:45"):
        assert pattern.match(text), text

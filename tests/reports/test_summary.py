"""The summary sentences: each with its number, flagged when it needs care."""

from __future__ import annotations

from typing import Any

import pandas as pd

from channelkit.reports.summary import INCOMPLETE, SMALL_BASE, PostRate, summary_sentences


def row(value: Any, previous: Any, *, small_base: bool = False) -> dict[str, Any]:
    delta = pd.NA if value is pd.NA or previous is pd.NA else value - previous
    pct = delta / previous if delta is not pd.NA and previous else pd.NA
    return {
        "value": value,
        "previous": previous,
        "delta": delta,
        "delta_pct": pct,
        "small_base": small_base,
    }


KPIS = {
    "read_rate": row(0.61, 0.57),
    "readers": row(12_345, 11_420),
    "posts_published": row(14, 12, small_base=True),
    "net_subscribers": row(34, -7),
}


def test_five_sentences_with_their_numbers() -> None:
    sentences = summary_sentences(
        KPIS,
        period_name="October 2026",
        previous_name="September 2026",
        best=PostRate("Town hall", 0.78, readers=780, audience=1000),
        weakest=PostRate("Parking rules", 0.12, 0.55),
    )
    assert [s.text for s in sentences] == [
        "Read rate was 61.0%, up 4.0 points from 57.0% in September 2026.",
        "Posts published in October 2026 reached 12,345 readers, up 8.1% from 11,420 in "
        "September 2026.",
        "14 posts were published, up 16.7% from 12 in September 2026.",
        "Best read (by read rate adjusted for audience size): \u201cTown hall\u201d at 78.0% "
        "(780 readers of 1,000); weakest: \u201cParking rules\u201d at 12.0% "
        "(its channel's median: 55.0%).",
        "Subscribers grew by 34 net (September 2026: \u22127).",
    ]
    assert [s.flags for s in sentences] == [(), (), (SMALL_BASE,), (), ()]


def test_an_incomplete_period_flags_every_sentence_and_missing_deltas_say_so() -> None:
    kpis = {"read_rate": row(0.5, pd.NA), "readers": row(1, pd.NA)}
    sentences = summary_sentences(
        kpis, period_name="November 2026", previous_name="October 2026", complete=False
    )
    assert sentences[0].text == "Read rate was 50.0% (no comparison with October 2026)."
    assert sentences[1].text == (
        "Posts published in November 2026 reached 1 reader (no comparison with October 2026)."
    )
    assert all(s.flags == (INCOMPLETE,) for s in sentences)


def test_missing_metrics_leave_their_sentence_out() -> None:
    sentences = summary_sentences(
        {"net_subscribers": row(0, 5)}, period_name="W", previous_name="V"
    )
    assert [s.text for s in sentences] == ["Subscribers did not change overall (V: +5)."]

"""The one channel matcher (`channelkit._channels`) and the nearest-name helper."""

from __future__ import annotations

import pytest

from channelkit._channels import ChannelLookup, ChannelName, channel_candidates, match_channel
from channelkit._suggest import choices_text, nearest
from channelkit._tz import resolve_tz
from channelkit.errors import InvalidParameterError

CHANNELS = [
    ChannelName("chan_1", "all-hands", "All hands"),
    ChannelName("chan_2", "engineering-news", "Engineering News"),
    ChannelName("chan_3", "news", "Company News"),
    ChannelName("chan_4", "news-de", "Company News"),
]


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("chan_2", "chan_2"),
        ("  CHAN_2 ", "chan_2"),
        ("all-hands", "chan_1"),
        ("ALL-HANDS", "chan_1"),
        ("all hands", "chan_1"),
        ("  All   Hands ", "chan_1"),
        ("news", "chan_3"),  # a slug wins over two channels named alike
    ],
)
def test_id_slug_or_name_trimmed_and_case_insensitive(ref: str, expected: str) -> None:
    assert match_channel(ref, CHANNELS).id == expected


def test_unknown_lists_nearest_names_first_and_names_the_param() -> None:
    with pytest.raises(InvalidParameterError) as raised:
        match_channel("engineering", CHANNELS, param="--channel")
    assert raised.value.param == "--channel"
    message = raised.value.message
    assert "did you mean 'engineering-news'?" in message
    assert message.index("engineering-news") < message.index("all-hands")


def test_ambiguous_name_lists_candidates_with_ids() -> None:
    with pytest.raises(InvalidParameterError) as raised:
        match_channel("company news", CHANNELS)
    assert "chan_3" in raised.value.message and "chan_4" in raised.value.message
    assert len(channel_candidates("company news", CHANNELS)) == 2


@pytest.mark.parametrize(
    "ref",
    ["chan_2", " CHAN_2 ", "all hands", "news", "company news", "Company  NEWS", "x", "", "  "],
)
def test_lookup_agrees_with_the_matcher(ref: str) -> None:
    """`ChannelLookup` (a spreadsheet's rows: folded once) answers as `match_channel`."""
    channels = [*CHANNELS, ChannelName("chan_5", "", "No slug")]
    lookup = ChannelLookup(channels)
    assert lookup.candidates(ref) == channel_candidates(ref, channels)
    try:
        expected: object = match_channel(ref, channels, param="p", seen_by="k")
    except InvalidParameterError as exc:
        expected = (exc.param, exc.message)
    try:
        got: object = lookup.match(ref, param="p", seen_by="k")
    except InvalidParameterError as exc:
        got = (exc.param, exc.message)
    assert got == expected


def test_no_channels_at_all_says_so() -> None:
    with pytest.raises(InvalidParameterError, match="there are no channels"):
        match_channel("x", [])


def test_nearest_and_choices() -> None:
    assert nearest("synk", ["demo", "sync", "serve"]) == ["sync"]
    assert choices_text("zzz", ["a", "b"]) == "choices: a, b"
    many = [f"name{i}" for i in range(9)]
    assert choices_text("name3", many).endswith("... (9 in all)")


def test_resolve_tz_argument_then_environment_then_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHANNELKIT_TZ", raising=False)
    assert resolve_tz(None) == "UTC"
    monkeypatch.setenv("CHANNELKIT_TZ", " Europe/Berlin ")
    assert resolve_tz(None) == "Europe/Berlin"
    assert resolve_tz("Asia/Tokyo") == "Asia/Tokyo"
    assert resolve_tz("") == "Europe/Berlin"

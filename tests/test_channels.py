"""The one channel matcher (`channelkit._channels`) and the nearest-name helper."""

from __future__ import annotations

import pytest

from channelkit._channels import ChannelLookup, ChannelName, channel_candidates, match_channel
from channelkit._suggest import choices_text, nearest
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


def test_one_lookup_answers_many_rows_and_an_empty_field_names_nothing() -> None:
    """A spreadsheet folds its channels once (`ChannelLookup`), then matches every row."""
    lookup = ChannelLookup([*CHANNELS, ChannelName("chan_5", "", "No slug")])
    refs = ("chan_2", " ALL HANDS ", "news", "no slug")
    assert [lookup.match(ref).id for ref in refs] == ["chan_2", "chan_1", "chan_3", "chan_5"]
    assert lookup.candidates("") == lookup.candidates("  ") == []
    with pytest.raises(InvalidParameterError) as raised:
        lookup.match("company news", param="row 3: channel")
    assert raised.value.param == "row 3: channel"
    assert "chan_3" in raised.value.message and "chan_4" in raised.value.message


def test_no_channels_at_all_says_so() -> None:
    with pytest.raises(InvalidParameterError, match="there are no channels"):
        match_channel("x", [])


def test_nearest_and_choices() -> None:
    assert nearest("synk", ["demo", "sync", "serve"]) == ["sync"]
    assert choices_text("zzz", ["a", "b"]) == "choices: a, b"
    many = [f"name{i}" for i in range(9)]
    assert choices_text("name3", many).endswith("... (9 in all)")

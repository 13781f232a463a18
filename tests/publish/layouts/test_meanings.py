"""Hints by meaning, not by spelling: what another tool's header holds, from its words."""

from __future__ import annotations

import pytest

from channelkit.publish.layouts.meanings import meaning
from channelkit.publish.sheets.columns import map_headers


@pytest.mark.parametrize(
    ("header", "role"),
    [
        ("post_link", "link"),  # a link, though "post" is a word of the text too
        ("Caption", "message"),
        ("Copy", "message"),
        ("post_content", "message"),
        ("Page", "profile"),
        ("Profile", "profile"),
        ("Social Network", "profile"),
        ("image_url", "image"),  # an image, though "url" is a link's word
        ("video_url", "unsupported"),
        ("Posting Time", "when"),
        ("publishDate", "when"),  # camelCase is split into its words
        ("Headline", "title"),
        ("Alt text", "ignored"),  # an image's alt text, not the post's text
        ("Foo", None),
    ],
)
def test_a_header_means_what_its_words_say(header: str, role: str | None) -> None:
    assert meaning(header) == role


@pytest.mark.parametrize(
    ("header", "says", "not_said"),
    [
        ("post_link", "by its name, a link", "did you mean 'id'"),
        ("Caption", "by its name, the post's text", "did you mean 'action'"),
        ("Page", "by its name, where the post goes", "did you mean"),
        ("Titel", "did you mean 'title'?", "by its name"),  # no word tells: spelling
    ],
)
def test_an_unknown_posts_file_column_is_hinted_by_meaning_first(
    header: str, says: str, not_said: str
) -> None:
    problems = map_headers(["channel", header])[1]
    unknown = next(problem for problem in problems if header in problem)
    assert says in unknown and not_said not in unknown

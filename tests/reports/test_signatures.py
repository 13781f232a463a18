"""`generate_report` and `build_report` spell out the same options (for `help()` and IDEs):
the shared ones must keep one name, kind, default and type, or the two would drift."""

from __future__ import annotations

import inspect

from channelkit.reports import build_report, generate_report

# What only one of them has: where the page goes, and the links a delivery adds to it.
ONLY_GENERATE = {"out_path", "csv_dir", "format", "paper"}
ONLY_BUILD = {"links"}


def test_generate_and_build_share_their_options() -> None:
    generate = inspect.signature(generate_report).parameters
    build = inspect.signature(build_report).parameters
    assert set(generate) - set(build) == ONLY_GENERATE
    assert set(build) - set(generate) == ONLY_BUILD
    for name in set(generate) & set(build):
        one, other = generate[name], build[name]
        assert (one.kind, one.default, one.annotation) == (
            other.kind,
            other.default,
            other.annotation,
        ), name

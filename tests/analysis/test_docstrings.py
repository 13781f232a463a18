"""The usage examples in the analysis docstrings run and print what they say."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from channelkit.analysis import filters, period, sql


@pytest.mark.parametrize("module", [filters, period, sql], ids=lambda m: m.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0

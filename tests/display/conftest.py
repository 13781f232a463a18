"""The IPython shell a notebook runs in, with channelkit's display formatter registered."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

from channelkit.display import register


@pytest.fixture(scope="module")
def shell() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    assert register()  # what a Warehouse made in the notebook does
    try:
        yield shell
    finally:
        InteractiveShell.clear_instance()

"""`require` imports an optional library, or names the extra that installs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import channelkit as ck
from channelkit._optional import require


def test_an_installed_library_is_returned() -> None:
    assert require("json", extra="images") is json


def test_a_missing_library_names_the_extra_to_install() -> None:
    with pytest.raises(ck.MissingDependencyError) as caught:
        require("channelkit_no_such_library.sub", extra="images", purpose="To save a PNG,")
    message = str(caught.value)
    assert message.startswith("To save a PNG, channelkit needs 'channelkit_no_such_library'")
    assert message.endswith("install it with: pip install 'channelkit[images]'")
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, ck.ChannelkitError)
    assert caught.value.name == "channelkit_no_such_library"


def test_a_broken_installed_library_shows_its_own_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "half_installed"
    package.mkdir()
    (package / "__init__.py").write_text("import its_missing_dependency\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as caught:
        require("half_installed", extra="images")
    assert not isinstance(caught.value, ck.MissingDependencyError)
    assert caught.value.name == "its_missing_dependency"

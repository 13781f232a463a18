"""Optional capabilities: import a library that only an extra installs, or say which extra.

kaleido = require("kaleido", extra="images")   # in the function that needs it
"""

from __future__ import annotations

import importlib
from types import ModuleType

from channelkit.errors import MissingDependencyError


def require(module: str, *, extra: str, purpose: str | None = None) -> ModuleType:
    """Import `module`, or raise `MissingDependencyError` naming the pip extra that installs it.

    Call it where the capability is used (not at module level), so that everything else
    keeps working without the extra. `purpose` ("to save figures as PNG") starts the message.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.partition(".")[0]
        if exc.name is not None and exc.name.partition(".")[0] != top:
            raise  # the library is installed but one of its own imports is broken: show that
        what = f"{purpose} channelkit needs" if purpose else "channelkit needs"
        raise MissingDependencyError(
            f"{what} {top!r}, which is optional; install it with: "
            f"pip install 'channelkit[{extra}]'",
            name=top,
        ) from None

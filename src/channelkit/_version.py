"""The package version, a leaf: whatever names it (the CLI, the client's User-Agent, the
service's OpenAPI, a report's generator tag) imports it from here, not the package root."""

from __future__ import annotations

__version__ = "0.1.0"

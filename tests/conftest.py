"""Shared fixtures live in tests/fixtures/, one module per part that provides them."""

pytest_plugins = [
    "fixtures.service",
    "fixtures.warehouse",
]

"""`python -m channelkit`: the same as the `channelkit` command."""

from channelkit.cli import run

run()

"""`channelkit watch WATCH.toml`: tells when a job did not run, hung or failed, from outside it.

channelkit watch watch.toml --once             # from a timer, every few minutes
channelkit watch watch.toml                    # a loop, one run per `every`
channelkit watch watch.toml --print-crontab    # the jobs' and the watcher's crontab
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import click

from channelkit._cli import (
    Output,
    options_value,
    output_options,
    settings_file_argument,
    stop_if_interrupted,
    user_errors,
)


@dataclass(frozen=True)
class WatchOptions:
    """`channelkit watch`'s own flags, as given.

    >>> WatchOptions(Path("watch.toml"), once=True).once
    True
    """

    watch_file: Path
    once: bool = False
    print_crontab: bool = False


@click.command("watch")
@options_value(WatchOptions, "options")
@settings_file_argument("watch_file")
@click.option("--once", is_flag=True, help="Judge every job once and leave (for a timer).")
@click.option(
    "--print-crontab",
    is_flag=True,
    help="Print the crontab lines of the jobs and the watcher, from the watch file.",
)
@output_options(quiet_help="Print only alerts that could not be sent (on stderr).")
def watch(options: WatchOptions, output: Output) -> None:
    """Alert once when a job of WATCH_FILE is late, hung or failed, and once when it is back.

    \b
    channelkit watch watch.toml --once
    channelkit watch watch.toml --print-crontab | crontab -

    Reads the runs the jobs record beside the warehouse, never the warehouse itself. Without
    --once it runs every `every` of the watch file until stopped.
    """
    with user_errors():
        run_watch_command(options, output)


def run_watch_command(options: WatchOptions, output: Output) -> None:
    """`channelkit watch`: the watch file read, then one run, a loop, or the crontab."""
    from channelkit.watch.config import load_watch
    from channelkit.watch.crontab import crontab
    from channelkit.watch.watcher import watch_once

    # "watch.toml: jobs[0].cron: ..." names the file and key, not a flag.
    with user_errors(parameters="text"):
        config = load_watch(options.watch_file)
    if options.print_crontab:
        click.echo(crontab(config), nl=False)
        return
    while True:
        for line in watch_once(config):
            if " failed: " in line:
                click.echo(line, err=True)
            elif not output.quiet:
                click.echo(line)
        if options.once:
            return
        time.sleep(config.every.total_seconds())
        stop_if_interrupted()

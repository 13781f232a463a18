"""`channelkit watch`: a watcher outside the jobs that tells when one did not run, hung or
failed, and when it is back (docs/reports.md, "Watching the jobs").

`cron.py` the schedules in their zones, `config.py` the watch file, `judge.py` what is
wrong now, `alerts.py` what each alert says, `state.py` the incidents and the outbox,
`watcher.py` one run, `crontab.py` the crontab it prints, `cli.py` the command. The jobs'
side, the runs they record and the pings they send, is the leaf `channelkit._job_runs`.
"""

"""Self-contained HTML engagement reports (`channelkit report`).

See docs/reports.md for the command, scheduling and custom templates.
"""

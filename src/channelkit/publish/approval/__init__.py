"""Approval before publishing: the team's policy, the signed approvals that bind exactly
what goes out, the waiting state on the service, and `channelkit approve`.

Above `post/`; `hold/` and `calendar/` read the approval state through it.
"""

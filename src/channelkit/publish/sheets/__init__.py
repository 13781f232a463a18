"""The posts spreadsheet: its columns and dates, reading it, the plan, the results, the
template, and the slots that fill blank times.

Above `post/` and `layouts/`.
"""

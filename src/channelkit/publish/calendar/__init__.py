"""The content calendar: exported, edited in a spreadsheet, compared and applied; crowded
channels; and the export in another tool's layout.

The top wing: it reads holds (a held post is not given a time) and the other wings.
"""

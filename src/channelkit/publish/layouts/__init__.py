"""Other tools' bulk files: their layouts declared as data, recognised, read and written.

Above `post/` only: a posts file (`sheets/`) asks this wing whether a file is another tool's.
"""

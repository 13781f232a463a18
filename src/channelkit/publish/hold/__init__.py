"""Holding every scheduled post on a bad day and releasing each exactly once: the mark a held
draft carries, the record of what this machine held, and the commands.

Above `post/` and `sheets/`.
"""

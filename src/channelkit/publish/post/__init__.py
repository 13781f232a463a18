"""The rules every post obeys, whatever route it takes: fields, validation, times, cells,
the sent-posts ledger, sending, origins and duplicates, and the window of scheduled posts.

The bottom wing of `channelkit.publish`: it imports no other wing.
"""

"""The pure engine: text in, an Analysis and edits out; no files, no import system.

See docs/design.md for the data path through its modules.
"""

# jaxrewrite: enable
"""Aliases meant for other modules (jr009_imported_alias imports them): an alias does nothing
outside the module that defines it, so an unused one is reported here."""
from jaxrewrite import Static

SInt = Static[int]
Plain = int

"""The warning rules of ``check`` (JR0nn), one module each, named for what it checks; the list of
them, in the order they run, is ``registry.RULES``."""

"""A module without the pragma: imported as Python would, and skipped by ``jaxrewrite compile``."""


def describe() -> str:
    return "thelib 1.0"

# jaxrewrite: enable
"""``# noqa`` on the reported line: bare, or naming codes."""
import jax

from jaxrewrite import Static


def helper(x, n: Static[int]):  # noqa: JR002
    return x


def other(x, n: Static[int]):  # noqa: JR003 (a different code: still reported)
    return x


def quiet(x, n: Static[list]):  # noqa
    return x

# jaxrewrite: enable
"""A name imported from a module jaxrewrite does not read, where a marker would act: a finding,
never a guess. ``check`` follows the import to its file where it can: a marker alias there is
reported, a name that is none (``Plain``) is not; one it cannot read is reported as unread."""
import jax
from jax import Array

from .jr009_aliases import Plain, SInt
from .no_such_module import Unknown


@jax.jit
def f(x: Array, n: SInt, m: Plain):
    return x * n * m


@jax.jit
def g(x: Array, k: Unknown):
    return x * k

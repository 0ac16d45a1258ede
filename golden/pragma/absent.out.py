"""No pragma: nothing changes, even with Static and jit."""
import jax
from jaxrewrite import Static


@jax.jit
def f(x, n: Static[int]):
    return x

"""Static under jit, but the header does not opt in: the annotation does nothing."""
import jax

from jaxrewrite import Static


@jax.jit
def scale(x, n: Static[int]):
    return x * len(range(n))

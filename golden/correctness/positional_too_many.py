# jaxrewrite: enable
"""pmap takes only axis_name by position after the function: a second positional argument is refused."""
import jax
from jaxrewrite import Static


def summed(x, n: Static[int]):
    return jax.lax.psum(x, "i") * n


per_device = jax.pmap(summed, "i", 0)

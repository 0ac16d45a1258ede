# jaxrewrite: enable
"""An in_axes passed by position is checked like the keyword: mapping a Static argument is an error."""
import jax
from jaxrewrite import Static


def body(x, n: Static[int]):
    return x * n


mapped = jax.vmap(body, (0, 0))

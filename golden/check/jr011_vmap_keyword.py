# jaxrewrite: enable
"""vmap maps keyword arguments over axis 0 whatever in_axes says: a Static one passed by name is traced."""
import jax

from jaxrewrite import Static


def body(x, n: Static[int]):
    return x * n


mapped = jax.vmap(body)
by_name = mapped(jax.numpy.ones(3), n=2)
by_position = mapped(jax.numpy.ones(3), 2)  # fine
nested = jax.jit(jax.vmap(body))(jax.numpy.ones(3), n=2)


@jax.vmap
def decorated(x, n: Static[int]):
    return x * n


decorated(jax.numpy.ones(3), n=2)

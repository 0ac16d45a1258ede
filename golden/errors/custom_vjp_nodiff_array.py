# jaxrewrite: enable
"""NoDiff on an array under custom_vjp: nondiff_argnums are for non-array values (JAX's rule)."""
import jax
from jaxrewrite import NoDiff


@jax.custom_vjp
def gather(x, idx: NoDiff[jax.Array]):
    return x[idx]

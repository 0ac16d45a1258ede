# jaxrewrite: enable
import jax
import jaxrewrite


@jax.jit
def f(x, n: jaxrewrite.Static[int] | None = None):
    return x

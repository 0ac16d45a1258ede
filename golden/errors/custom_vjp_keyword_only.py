# jaxrewrite: enable
import jax
from jaxrewrite import NoDiff


@jax.custom_vjp
def f(x, *, g: NoDiff[float]):
    return x

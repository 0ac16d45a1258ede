# jaxrewrite: enable
import jax
from jaxrewrite import NoDiff


def loss(mask: NoDiff[jax.Array], x):
    return (x * mask).sum()


both = jax.value_and_grad(loss)

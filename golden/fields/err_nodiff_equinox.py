# jaxrewrite: enable
import equinox as eqx
import jax
from jaxrewrite import NoDiff


class Model(eqx.Module):
    w: jax.Array
    mask: NoDiff[jax.Array]

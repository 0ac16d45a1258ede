# jaxrewrite: enable
import equinox as eqx
from jaxrewrite import Static

STATIC = True


class Model(eqx.Module):
    n: Static[int] = eqx.field(default=3, static=STATIC)

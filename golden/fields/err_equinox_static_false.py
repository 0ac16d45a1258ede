# jaxrewrite: enable
import equinox as eqx
from jaxrewrite import Static


class Model(eqx.Module):
    n: Static[int] = eqx.field(default=3, static=False)

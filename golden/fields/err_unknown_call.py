# jaxrewrite: enable
import equinox as eqx
from jaxrewrite import Static


def static_field(**kwargs):
    return eqx.field(static=True, **kwargs)


class Model(eqx.Module):
    n: Static[int] = static_field(default=3)

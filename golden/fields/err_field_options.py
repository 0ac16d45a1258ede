# jaxrewrite: enable
import equinox as eqx
from jaxrewrite import Static

OPTIONS = {"default": 3}


class Model(eqx.Module):
    n: Static[int] = eqx.field(**OPTIONS)

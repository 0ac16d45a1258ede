# jaxrewrite: enable
import equinox as eqx
from jaxrewrite import Static


class Base(eqx.Module):
    n: int = 3


class Model(Base):
    n: Static[int]

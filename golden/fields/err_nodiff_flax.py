# jaxrewrite: enable
import jax
from flax import struct
from jaxrewrite import NoDiff


@struct.dataclass
class State:
    mask: NoDiff[jax.Array]

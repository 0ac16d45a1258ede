# jaxrewrite: enable
"""nn.jit cannot take the last two positional parameters of a method as static by position."""
import flax.linen as nn
from jaxrewrite import Static


class M(nn.Module):
    @nn.jit
    def __call__(self, x, n: Static[int]):
        return x * n

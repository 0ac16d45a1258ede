# jaxrewrite: enable
"""Methods count self; staticmethod does not; nested functions and class-body aliases work."""
import jax
from jaxrewrite import Static


class Model:
    def __init__(self, scale):
        self.scale = scale

    def __hash__(self):
        return hash(self.scale)

    def __eq__(self, other):
        return isinstance(other, Model) and other.scale == self.scale

    @__import__('functools').partial(jax.jit, static_argnums=(0, 2), static_argnames=('self', 'n'))
    def apply(self: Static["Model"], x, n: Static[int]):
        return x * self.scale * len(range(n))

    @staticmethod
    @__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
    def helper(x, n: Static[int]):
        return x * len(range(n))

    compile_it = jax.jit

    @__import__('functools').partial(compile_it, static_argnums=(0, 2), static_argnames=('self', 'n'))
    def via_class_name(self: Static["Model"], x, n: Static[int]):
        return x * len(range(n))


def outer(k):
    @__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
    def inner(x, n: Static[int]):
        return x * len(range(n)) + k

    return inner


def _check():
    m = Model(2.0)
    assert float(m.apply(1.0, 3)) == 6.0
    assert float(m.apply(1.0, n=3)) == 6.0
    assert float(Model.helper(1.0, 4)) == 4.0
    assert float(m.via_class_name(1.0, 5)) == 5.0
    assert float(outer(1.0)(1.0, 2)) == 3.0


_PLAIN_FAILS = True

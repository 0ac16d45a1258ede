# jaxrewrite: enable
"""Static fields of classes registered by their own flatten: jaxrewrite cannot see the aux data."""
import jax
from jaxrewrite import Static


@jax.tree_util.register_pytree_node_class
class Decorated:
    x: jax.Array
    n: Static[int]

    def tree_flatten(self):
        return (self.x,), self.n

    @classmethod
    def tree_unflatten(cls, n, children):
        return cls(*children, n)


class Called:
    x: jax.Array
    n: Static[int]


jax.tree_util.register_pytree_with_keys(Called, lambda c: ((), None), lambda aux, children: Called())

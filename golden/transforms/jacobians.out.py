# jaxrewrite: enable
"""jacfwd, jacrev, jacobian, hessian: like grad, nothing to write; Static stays a Python value."""
import jax
import jax.numpy as jnp
from jaxrewrite import NoDiff, Static


def loss(x, n: Static[int], scale: NoDiff[float] = 1.0):
    for _ in range(n):
        x = jnp.sin(x) * scale
    return (x * x).sum()


forward = jax.jit(jax.jacfwd(loss), static_argnums=(1,), static_argnames=('n',))
reverse = jax.jit(jax.jacrev(loss, argnums=0), static_argnums=(1,), static_argnames=('n',))
curvature = jax.jit(jax.hessian(loss), static_argnums=(1,), static_argnames=('n',))


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
@jax.jacobian
def direct(x, n: Static[int]):
    return jnp.full(n, x.sum())


def _check():
    x = jnp.arange(3.0)
    assert forward(x, 2).shape == reverse(x, 2).shape == (3,)
    assert jnp.allclose(forward(x, 2), reverse(x, 2))
    assert curvature(x, 2).shape == (3, 3)
    assert direct(x, 4).shape == (4, 3)


_PLAIN_FAILS = True

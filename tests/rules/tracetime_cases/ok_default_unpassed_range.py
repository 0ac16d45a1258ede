import jax, jax.numpy as jnp
# jax's own _lu_blocked(a, block_size=128) under vmap: the default is never passed, so range()
# sees a Python int at every trace (a finding here was a false positive over jax's sources).
def blocked(a, block_size=2):
    out = a
    for k in range(0, a.shape[0], block_size):
        out = out.at[k].add(1.0)
    return out
def main():
    fn = blocked
    fn = jax.vmap(fn)
    return fn(jnp.ones((2, 4)))

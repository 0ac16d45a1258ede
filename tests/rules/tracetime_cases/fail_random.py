import jax
@jax.jit
def f(key, n: int):
    return jax.random.normal(key, shape=(n,))
def main():
    return f(jax.random.key(0), 3)

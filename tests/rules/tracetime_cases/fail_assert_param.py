import jax
@jax.jit
def f(x, p: float):
    assert p
    return x * p
def main():
    return f(1.0, 2.0)

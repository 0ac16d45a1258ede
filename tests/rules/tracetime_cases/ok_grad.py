import jax
def f(x: float, n: int):
    return x * len(range(n)) if x > 0 else -x
def main():
    return jax.grad(f)(1.0, 3)

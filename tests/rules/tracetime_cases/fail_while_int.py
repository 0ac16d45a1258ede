import jax
@jax.jit
def f(x, n: int):
    while n:
        x = x + 1
        n = n - 1
    return x
def main():
    return f(1.0, 3)

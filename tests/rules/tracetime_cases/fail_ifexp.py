import jax
@jax.jit
def f(x, p: bool):
    return x if p else -x
def main():
    return f(1.0, True)

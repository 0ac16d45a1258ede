# https://theneuralbase.com/jax/learn/beginner/jit-with-static-argnums/ (random.normal(key, (length,)) with length traced)
import jax


def compute_output(key, length, scale):
    return jax.random.normal(key, (length,)) * scale


def main():
    return jax.jit(compute_output)(jax.random.PRNGKey(0), 5, 2.0)

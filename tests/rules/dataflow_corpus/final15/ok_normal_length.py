# https://theneuralbase.com/jax/learn/beginner/jit-with-static-argnums/ (static_argnums=(1,))
import jax


def compute_output(key, length, scale):
    return jax.random.normal(key, (length,)) * scale


def main():
    return jax.jit(compute_output, static_argnums=(1,))(jax.random.PRNGKey(0), 5, 2.0)

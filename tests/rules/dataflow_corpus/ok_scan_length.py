# https://github.com/jax-ml/jax/issues/3603 (the same scan with length static for jit)
import jax


def do_stuff(length):
    def f(carry, x):
        return carry, [None]

    jax.lax.scan(f, [1], xs=None, length=length)


def main():
    return jax.jit(do_stuff, static_argnums=0)(10)

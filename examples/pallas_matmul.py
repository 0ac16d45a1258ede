# jaxrewrite: enable
"""A Pallas kernel whose block sizes, accumulator dtype and flags are ``Static``.

Kernel code is where static arguments crowd: every block size, dtype and flag picks a different
kernel, so each must be a Python value when ``pallas_call`` is traced. Here they are annotations:
``dense`` is a ``pallas_call`` wrapper under ``jax.jit`` (jaxrewrite writes its
``static_argnums``/``static_argnames``), ``matmul`` a ``custom_vjp`` whose flags are ``NoDiff``
(jaxrewrite writes its ``nondiff_argnums``, and the backward rule gets them first, as JAX hands
them). Run it through the rewriter::

    python -m jaxrewrite examples/pallas_matmul.py

On a CPU the kernel runs in Pallas's interpret mode (``interpret=True``); on a TPU or GPU it is
compiled. ``tests/engine/test_pallas.py`` compares it with the same kernel written in plain JAX.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from jaxrewrite import NoDiff, Static

#: Each trace of the jitted entry point, with its static arguments (a new one traces again).
TRACES = []


def _kernel(x_ref, y_ref, o_ref, *, acc_dtype, relu):
    acc = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=acc_dtype)
    if relu:  # a Python flag: the kernel is built with or without it
        acc = jnp.maximum(acc, 0)
    o_ref[...] = acc.astype(o_ref.dtype)


def _pallas_matmul(x, y, block_m, block_n, acc_dtype, relu, interpret):
    (m, k), (_, n) = x.shape, y.shape
    return pl.pallas_call(
        functools.partial(_kernel, acc_dtype=acc_dtype, relu=relu),
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // block_m, n // block_n),
        in_specs=[
            pl.BlockSpec((block_m, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, block_n), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((block_m, block_n), lambda i, j: (i, j)),
        interpret=interpret,
    )(x, y)


@jax.custom_vjp
def matmul(
    x,
    y,
    block_m: NoDiff[int],
    block_n: NoDiff[int],
    acc_dtype: NoDiff,
    relu: NoDiff[bool],
    interpret: NoDiff[bool],
):
    return _pallas_matmul(x, y, block_m, block_n, acc_dtype, relu, interpret)


def _matmul_fwd(x, y, block_m, block_n, acc_dtype, relu, interpret):
    out = _pallas_matmul(x, y, block_m, block_n, acc_dtype, relu, interpret)
    return out, (x, y, out)


def _matmul_bwd(block_m, block_n, acc_dtype, relu, interpret, res, g):
    x, y, out = res
    if relu:
        g = jnp.where(out > 0, g, 0)
    k = x.shape[1]  # the gradients are (m, k) and (k, n): k is one block
    dx = _pallas_matmul(g, y.T, block_m, k, acc_dtype, False, interpret)
    dy = _pallas_matmul(x.T, g, k, block_n, acc_dtype, False, interpret)
    return dx, dy


matmul.defvjp(_matmul_fwd, _matmul_bwd)


@jax.jit
def dense(
    x,
    w,
    block_m: Static[int] = 8,
    block_n: Static[int] = 8,
    acc_dtype: Static = jnp.float32,
    relu: Static[bool] = False,
    interpret: Static[bool] = True,
):
    TRACES.append((x.shape, block_m, block_n, jnp.dtype(acc_dtype).name, relu))
    return matmul(x, w, block_m, block_n, acc_dtype, relu, interpret)


def main():
    on_cpu = jax.default_backend() == "cpu"
    x = jnp.arange(16 * 8, dtype=jnp.float32).reshape(16, 8) / 100
    w = jnp.ones((8, 16), jnp.float32)
    print(dense(x, w, relu=True, interpret=on_cpu)[0, :4])
    print(dense(x, w, 16, 8, interpret=on_cpu)[0, :4])
    grad = jax.grad(lambda w: dense(x, w, relu=True, interpret=on_cpu).sum())(w)
    print(grad[0, :4])
    print(len(TRACES), "traces")


if __name__ == "__main__":
    main()

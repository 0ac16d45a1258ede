# https://github.com/jax-ml/jax/pull/22098 (qiaoqiao static)
from functools import partial

import jax


@partial(jax.jit, static_argnames=("qiaoqiao",))
def f(qiaoqiao: bool):
    if True and qiaoqiao:
        return 1
    return 0


def main():
    return f(True)

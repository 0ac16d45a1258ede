# https://github.com/jax-ml/jax/pull/22098 (if True and qiaoqiao)
import jax


@jax.jit
def f(qiaoqiao: bool):
    if True and qiaoqiao:
        return 1
    return 0


def main():
    return f(True)

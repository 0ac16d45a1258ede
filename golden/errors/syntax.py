# jaxrewrite: enable
from jaxrewrite import Static


def f(x, n: Static[int]):
    return print(x))

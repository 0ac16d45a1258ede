# jaxrewrite: enable
from jaxrewrite import Static


def f(x, n: "list[Static[int]]"):
    return x

# jaxrewrite: enable
import jax
from jaxrewrite import Static


def f(x, **options: Static[dict]):  # an error even without a transform
    return x

#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Shebang, coding line, docstring and future imports may all come before the pragma."""
from __future__ import annotations
from __future__ import division
# jaxrewrite: enable

import jax
from jaxrewrite import Static


@__import__('functools').partial(jax.jit, static_argnums=(1,), static_argnames=('n',))
def f(x, n: Static[int]):
    return x * len(range(n))


def _check():
    assert float(f(1.0, 2)) == 2.0


_PLAIN_FAILS = True

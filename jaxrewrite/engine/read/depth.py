"""The engine reads every tree Python's parser accepts, however deep (a long generated sum): a
pure entry point that runs out of recursion runs once more in a thread with a large stack.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def any_depth(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` as is, then, if it runs out of recursion, once more in a thread whose recursion
    limit is 200,000 and whose stack 1 GiB (address space, touched only as deep as the walk goes).
    """

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except RecursionError as error:  # the deep attempt calls ``fn`` itself: no third one
            shallow = error
        from concurrent.futures import ThreadPoolExecutor  # only a deep tree pays for the import

        limit = sys.getrecursionlimit()
        try:
            previous = threading.stack_size(1 << 30)
        except (ValueError, RuntimeError):  # no settable thread stacks here: the first error stands
            raise shallow from None
        try:
            # The limit is the interpreter's, not the thread's: raised only while this caller
            # waits (leaving the pool joins its thread); the call's own errors are the future's.
            sys.setrecursionlimit(max(limit, 200_000))
            with ThreadPoolExecutor(1, "jaxrewrite-any-depth") as pool:
                future = pool.submit(fn, *args, **kwargs)
        except RuntimeError:  # threads cannot start here (WebAssembly builds): the first one stands
            raise shallow from None
        finally:
            sys.setrecursionlimit(limit)
            threading.stack_size(previous)
        return future.result()

    return run

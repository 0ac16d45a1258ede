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

#: The recursion limit of the second attempt, and the stack that carries it (address space,
#: touched only as deep as the walk goes).
DEEP_LIMIT = 200_000
DEEP_STACK = 1 << 30


def any_depth(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` as is, then, if it runs out of recursion, once more with room for any depth."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except RecursionError as shallow:
            if threading.current_thread().name.startswith(_THREAD):  # already the deep attempt
                raise
            return _deep(lambda: fn(*args, **kwargs), shallow)

    return run


_THREAD = "jaxrewrite-any-depth"


def _deep(call: Callable[[], T], shallow: RecursionError) -> T:
    from concurrent.futures import ThreadPoolExecutor  # only a deep tree pays for the import

    limit = sys.getrecursionlimit()
    try:
        previous = threading.stack_size(DEEP_STACK)
    except (ValueError, RuntimeError):  # no settable thread stacks here: the first error stands
        raise shallow from None
    try:
        # The limit is the interpreter's, not the thread's: raised only while this caller waits
        # (leaving the pool joins its thread); the call's own errors are the future's.
        sys.setrecursionlimit(max(limit, DEEP_LIMIT))
        with ThreadPoolExecutor(1, _THREAD) as pool:
            future = pool.submit(call)
    except RuntimeError:  # threads cannot start here (WebAssembly builds): the first error stands
        raise shallow from None
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(previous)
    return future.result()

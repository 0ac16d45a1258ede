"""How deep the suite reads: the README's test command samples, ``.ci/run`` reads it all.

Two kinds of work grow with the depth they are run at: the real-code corpus (every .py file of
jax, jaxlib and numpy: tests/corpus_support.py) and the examples hypothesis draws for each
property. The README's command runs every test, at a depth that keeps it within 5 minutes on 2
cores: a stable half of the corpus, half of each property's examples (the first half of the
same fixed sequence: every property is derandomized). ``JAXREWRITE_FULL=1`` reads every file
and draws every example; ``.ci/run`` runs the files that sample that way, and
tests/meta/test_docs.py fails when one of them is missing there.
"""

from __future__ import annotations

import os

FULL = os.environ.get("JAXREWRITE_FULL") == "1"


def examples(full: int) -> int:
    """A property's number of examples: ``full`` under ``JAXREWRITE_FULL=1``, else half of it."""
    return full if FULL else max(1, full // 2)

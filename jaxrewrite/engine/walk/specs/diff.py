"""The diff kind (``SpecKind.DIFF``): grad's ``argnums``, which lists what is differentiated.

Nothing to write, but a marked argument must not be differentiated (JAX would differentiate a
Python value, or a NoDiff array); no spec of this kind makes an argument static, so ``read``
refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jaxrewrite.engine.read.handwritten import Reading, Reason
from jaxrewrite.engine.read.literals import Values, literal_ints
from jaxrewrite.engine.read.signature import Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules

if TYPE_CHECKING:
    from jaxrewrite.engine.analysis import Use


def complete(use: Use, src: Source) -> Values | None:
    """Nothing to write; JR121 where a marked parameter is differentiated. Located at a call
    site's call (the parameter may be far away), else at the parameter."""
    t, sig, written = use.transform, use.signature, use.written
    call = use.node if use.kind.name == "CALL" else None  # by name: no import of the analysis
    marked = sig.marked(t.markers)
    if not marked:
        return None
    effective = {kw.arg: kw.value for kw in written if kw.arg is not None}
    node = effective.get(t.argnums)
    if node is None and any(kw.arg is None for kw in written):
        unpacked = next(kw.value for kw in written if kw.arg is None)
        raise rules.UNPACKED.error(src, unpacked, "check", transform=t.name)
    nums = literal_ints(node, t.argnums, src) if node is not None else (0,)
    n = sig.n_positional
    for p in marked:
        if p.position is None:
            continue
        for num in nums:
            if num == p.position or (num < 0 and not sig.var_positional and num + n == p.position):
                what = " and ".join(m.value for m in sorted(p.markers, key=lambda m: m.value))
                raise rules.DIFFERENTIATED.error(
                    src,
                    p.node if call is None else call,
                    name=p.name,
                    what=what,
                    transform=t.name,
                    keyword=t.argnums,
                    num=num,
                )
    return None


def read(use: Use, sig: Signature, src: Source) -> Reading:
    t = use.transform
    raise Reason.UNSUPPORTED.refused("differentiates", transform=t.name, keyword=t.argnums)

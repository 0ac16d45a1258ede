"""JR006 on a value the trace makes of Python values (``jnp.minimum(n, m)`` before ``jnp.arange``,
``jnp.add(x.size, 1)`` in a shape): under ``jit`` every ``jnp``/``lax`` call is staged, so its
result is a tracer even when all it is given is Python numbers, and a sink that needs a Python
value fails though no parameter is traced. Read through the body's sure expressions with a flow
whose only traced values are such calls (``flow.Flow(staged=True)``); a location a parameter's
finding already reports is left to it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.flow import ARRAY
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import Transform

_FIX = (
    "compute it with Python or NumPy, not jnp/lax (under the transform they return tracers even "
    "of Python numbers), or inside jax.ensure_compile_time_eval()"
)


def findings(
    reader: Any, use_node: ast.expr, t: Transform, src: Source, seen: set[tuple[int, int]]
) -> Iterator[Diagnostic]:
    """Sinks in the body (a ``traced_body.Body``) fed by a staged call of Python values."""
    flow = reader.flow({}, staged=True)
    for node in reader.sure():
        found = reader._use(node, flow)
        if found is None:
            continue
        where, error, how = found
        names = [
            n.id for n in ast.walk(where) if isinstance(n, ast.Name) and flow.state(n) == ARRAY
        ]
        name = names[0] if names else "a jnp value"
        diagnostic = Diagnostic.at(
            src,
            where,
            TRACED,
            name=name,
            transform=t.name,
            line=use_node.lineno,
            col=use_node.col_offset + 1,
            how=how,
            error=error,
            passed="",
            fix=_FIX,
        )
        if (diagnostic.line, diagnostic.col) not in seen:
            seen.add((diagnostic.line, diagnostic.col))
            yield diagnostic

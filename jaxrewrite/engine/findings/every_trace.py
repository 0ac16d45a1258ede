"""The expressions of a def's body that run on every trace, in order (JR006's paths).

A use is reported only where it runs whenever the function is traced: not under a branch, a loop
body, a handler, a context manager that is not JAX's own, nor after a statement that may leave the
block early; nor in a lambda, a comprehension's body or an operand ``and``/``or`` may skip.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxrewrite.engine.findings.flow import Resolve
from jaxrewrite.engine.read.nodes import child_nodes, own_nodes

#: Context managers under which values are concrete (or errors may be swallowed): not entered.
_CONCRETE_CONTEXTS = ("ensure_compile_time_eval", "disable_jit")
#: Statements that take the truth value of their test, by the keyword that spells them.
_TESTS = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}
_LEAVING = (ast.Return, ast.Raise, ast.Break, ast.Continue)


@dataclass(frozen=True)
class Truth:
    """An expression whose truth value Python takes (``if``, ``while``, ``not``, ``and``/``or``)."""

    expr: ast.expr
    how: str


def statements(body: list[ast.stmt], out: list[ast.AST | Truth], resolve: Resolve) -> bool:
    """Collect the sure expressions of ``body``; False once the rest may not run."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.If, ast.While, ast.Assert)):
            out.extend(expressions(stmt.test, resolve))
            out.append(Truth(stmt.test, f"'{_TESTS[type(stmt)]}' on it"))
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            out.extend(expressions(stmt.iter, resolve))
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                out.extend(expressions(item.context_expr, resolve))
            # Only JAX's own context managers are entered: another may swallow what its body raises.
            if not all(_jax_context(item.context_expr, resolve) for item in stmt.items):
                return False
            if not statements(stmt.body, out, resolve):
                return False
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            return False  # a handler may catch the error JAX raises
        elif isinstance(stmt, ast.Match):
            out.extend(expressions(stmt.subject, resolve))
        else:
            out.extend(expressions(stmt, resolve))
        if isinstance(stmt, _LEAVING) or _leaves_early(stmt):
            return False
    return True


def _leaves_early(stmt: ast.stmt) -> bool:
    """Can control leave the rest of the block from inside this compound statement?"""
    if not isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Match)):
        return False
    return any(isinstance(node, _LEAVING) for node in own_nodes([stmt]))


def _jax_context(expr: ast.expr, resolve: Resolve) -> bool:
    """A context manager of JAX's that neither makes values concrete nor swallows errors."""
    func = expr.func if isinstance(expr, ast.Call) else expr
    name = resolve(func) or ""
    return name.startswith("jax.") and name.rpartition(".")[2] not in _CONCRETE_CONTEXTS


def expressions(root: ast.AST, resolve: Resolve) -> list[ast.AST | Truth]:
    """The sub-expressions of ``root`` evaluated whenever it is (no lambda, comprehension body,
    or operand after the first of ``and``/``or``/a conditional expression)."""
    out: list[ast.AST | Truth] = []
    stack: list[ast.AST] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.append(node.generators[0].iter)
            continue
        out.append(node)
        if isinstance(node, ast.BoolOp):
            word = "and" if isinstance(node.op, ast.And) else "or"
            out.append(Truth(node.values[0], f"'{word}' on it"))
            stack.append(node.values[0])
            continue
        if isinstance(node, ast.IfExp):
            out.append(Truth(node.test, "a conditional expression on it"))
            stack.append(node.test)
            continue
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append(Truth(node.operand, "'not' on it"))
        if isinstance(node, ast.Compare) and len(node.ops) > 1:  # a < b < c is (a < b) and (b < c)
            first = ast.Compare(node.left, node.ops[:1], node.comparators[:1])
            first = ast.copy_location(first, node)
            out.append(Truth(first, "a chained comparison on it"))
        stack.extend(reversed(child_nodes(node)))
    return out

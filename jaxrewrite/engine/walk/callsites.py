"""The walk over calls: a transform called on a def of the module (through nests, rebindings and
wrappers in view), and ``register_dataclass(C)`` on a class of it.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.analysis import Function, Leaf, UseKind
from jaxrewrite.engine.read.classes import local_class
from jaxrewrite.engine.read.literals import resolve_keywords
from jaxrewrite.engine.read.markers import index_of
from jaxrewrite.engine.read.recognise import (
    TransformRef,
    bound_keywords,
    classify_cut,
    classify_registration,
    looks_like_transform,
)
from jaxrewrite.engine.read.resolve import MAX_DEPTH, PAST_DEPTH, TooDeep, qualname
from jaxrewrite.engine.read.scopes import (
    Assigned,
    Binding,
    Choice,
    Defined,
    DefinedClass,
    Scope,
    Site,
    choice_parts,
)
from jaxrewrite.engine.read.signature import Signature, read_signature
from jaxrewrite.engine.read.wrappers import keeps_signature, made_from, peel, wrapper_error
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import opaque_registration
from jaxrewrite.engine.walk.walker import Walked, complete_use, is_overload, register, untold
from jaxrewrite.errors import RewriteError


def call_site(walk: Walked, call: ast.Call, scope: Scope, site: Site) -> None:
    """``jax.jit(f)``, ``jax.pmap(f, in_axes=...)``, ``partial(jax.jit, ...)(f)`` for a local ``f``;
    ``jax.tree_util.register_dataclass(C)`` for a local class ``C``."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return
    registration = classify_registration(call.func, scope)
    if registration is not None or opaque_registration(qualname(call.func, scope)) is not None:
        local = local_class(call.args[0], scope)
        if local is None or not isinstance(local[0], DefinedClass):
            return
        node = local[0].node
        walk.registered.add(id(node))  # by a dataclass rule, or opaque (the user's flatten)
        if registration is None:
            walk.opaque.append((node, call.func))
            return
        transform, keywords = registration
        own = bound_keywords(call, transform.positional, transform.name, walk.src)
        registration = (transform, keywords + own)
        register(walk, UseKind.CALL, call, registration, node, own, walk.info(local), scope)
        return
    ref, cut = classify_cut(call.func, scope)
    if ref is None:
        # No transform: the argument matters only where the callee may be one after all (JR104,
        # JR127) or looks like one; a plain call (``fs.append(impl)``) is not even read.
        error = untold(call.func, scope, cut, walk.src)
        if error is None:
            looks = looks_like_transform(call.func)
            target = made_from(call.args[0], scope, walk.signatures) if looks else None
            if target is not None:
                walk.unknown_calls.setdefault(id(target), call.func)
            return
        try:
            target = _function(walk, call.args[0], scope, site)
        except (TooDeep, RewriteError):
            # The callee's refusal is the one to raise: what its argument is comes second.
            target = made_from(call.args[0], scope, walk.signatures)
        if target is not None and id(target) in walk.signatures:
            walk.refused_defs[id(target)] = error.code
            raise error
        return
    try:
        func = _function(walk, call.args[0], scope, site)
    except TooDeep:
        reached = made_from(call.args[0], scope, walk.signatures)
        if reached is None:
            return  # no marked def in reach: nothing to lose
        walk.applied.add(id(reached))
        walk.refused_defs[id(reached)] = rules.TOO_DEEP.code
        expr = walk.src.segment(call.args[0])
        raise rules.TOO_DEEP.error(
            walk.src, call.args[0], "function", expr=expr, past=PAST_DEPTH, name=reached.name
        ) from None
    if func is None:
        reached = made_from(call.args[0], scope, walk.signatures)
        if reached is not None:
            walk.applied.add(id(reached))
            walk.unseen.append((call, reached))
        return
    walk.applied.add(id(func))
    found = walk.signatures.get(id(func))
    if found is None and any(isinstance(a, ast.Starred) for a in call.args[1:]):
        # No markers, nothing to merge: ``jax.jit(fun, *jit_args)`` runs as written, as the
        # import (which reads only calls of marked defs) runs it.
        return
    t = ref.transform
    own = bound_keywords(call, t.positional, t.name, walk.src)
    written = ref.keywords + own
    if written:
        resolve_keywords(t, written, scope, walk.src)
        arg = call.args[0]
        while isinstance(arg, ast.Call) and arg.args:  # ``jax.jit(jax.named_call(f), ...)``
            if keeps_signature(arg.func, scope):
                walk.result.keeps_signature.add(id(arg))
            arg = arg.args[0]
    if found is None and walk.relevant is not None:
        return
    if found is None:  # no markers: reported for migrate, nothing to write
        found = (read_signature(func, scope, walk.src, None, index_of(walk.tree)), ())
    sig, leaves = found
    full = TransformRef(t, written, ref.factory)
    complete_use(walk, UseKind.CALL, call, full, func, sig, leaves, own, scope)


def _statics(found: tuple[Signature, tuple[Leaf, ...]]) -> tuple[object, ...]:
    """What twin defs must agree on: the Static parameters and per-leaf entries."""
    sig, leaves = found
    return [p[:4] for p in sig.params], [(*leaf.spec(), leaf.marks, leaf.inner) for leaf in leaves]


def _function(
    walk: Walked,
    arg: ast.expr,
    scope: Scope,
    site: Site,
    depth: int = 0,
    memo: dict[int, object] | None = None,
) -> Function | None:
    """The def a call-site argument names when the call runs, seen through transforms, wrappers
    (``wrappers.peel``) and names bound to them (``f = jax.jit(f)``, read where it runs); a
    RewriteError when it may be defs with different Static parameters. ``memo`` holds the
    assignments followed (one still being read is left out: ``f = jax.jit(f)`` in a loop does
    not follow itself); past ``MAX_DEPTH`` in a row, ``TooDeep``."""
    if depth > MAX_DEPTH:
        raise TooDeep
    memo = {} if memo is None else memo
    arg, wrapper = peel(arg, scope)
    if not isinstance(arg, ast.Name):
        return None
    found = scope.lookup(arg.id)
    if found is None:
        return None
    bindings, where = found
    seen = where.bindings_seen_at(arg.id, site) if where is scope else list(bindings)
    # A loop target over a literal (``for fn in (f, g):``) is the name bound each of those ways.
    seen = [b for b in choice_parts(seen or ()) if not (id(b) in memo and memo[id(b)] is _READING)]
    if len(seen) > 1:
        real = [b for b in seen if not (isinstance(b, Defined) and is_overload(b.node, where))]
        seen = real or seen[-1:]
    if not seen:
        return None
    resolved = [_bound_def(walk, b, arg.id, where, depth, memo) for b in seen]
    if any(isinstance(b, Assigned) and func is None for b, func in zip(seen, resolved)):
        # An assignment not seen through: assignments are then no defs at all, as they were
        # before they were followed (what a transform of it gets is reported: JR007).
        resolved = [b.node if isinstance(b, Defined) else None for b in seen]
    defs = [func for func in resolved if func is not None]
    if any(id(func) in walk.failed for func in defs):
        return None
    marked = [id(func) in walk.signatures for func in defs]
    func: Function | None = None
    if len(defs) == len(seen) and (len(defs) == 1 or not any(marked)):
        func = defs[-1]
    elif len(defs) == len(seen) and all(marked):
        first = _statics(walk.signatures[id(defs[0])])
        if all(_statics(walk.signatures[id(other)]) == first for other in defs[1:]):
            func = defs[-1]
            # Twin defs (``if ...: def f`` / ``else: def f``, ``for fn in (f, g):``): the
            # use applies to whichever runs.
            walk.applied.update(id(other) for other in defs[:-1])
            known = walk.twins.setdefault(id(func), [])
            known.extend(
                other
                for other in defs[:-1]
                if other is not func and all(other is not k for k in known)
            )
    if func is None:
        if not any(marked):
            return None
        raise rules.FUNCTION_BOUND_TWICE.error(walk.src, arg, name=arg.id)
    if wrapper is not None and id(func) in walk.signatures:
        walk.applied.add(id(func))
        raise wrapper_error(wrapper, wrapper.func, func, walk.src)
    return func


def _bound_def(
    walk: Walked, binding: Binding, name: str, where: Scope, depth: int, memo: dict[int, object]
) -> Function | None:
    """The def one binding of a name stands for: a def itself, or an assignment of what
    ``_function`` sees through to one (``f = jax.jit(f)``, ``g = f``), read at its own line."""
    if isinstance(binding, Defined):
        return binding.node
    if not isinstance(binding, Assigned) or binding.type_statement:
        return None  # ``type f = g`` binds an alias, never the def
    if not isinstance(binding.value, (ast.Call, ast.Name)):
        return None
    if id(binding) in memo:
        done = memo[id(binding)]
        return done if isinstance(done, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    index = next(
        i
        for i, b in enumerate(where.bindings[name])
        if b is binding or (isinstance(b, Choice) and binding in b.parts)
    )
    memo[id(binding)] = _READING  # met again while being read: a cycle, left out
    found = _function(walk, binding.value, binding.scope, where.sites[name][index], depth + 1, memo)
    memo[id(binding)] = found
    return found


_READING = object()  # an assignment ``_function`` is reading now

"""Trace-time errors found before anything runs (JR006): arguments a transform traces that the
function's body needs as Python values, or that JAX cannot trace at all.

The model is Julia's JET.jl: report the run-time error the analysis can prove. Precision comes
first, so a finding needs all of: a use of a transform that traces abstractly (``abstract``
in the table), the signature JAX sees (no unknown decorator in between), the parameter not static
for that use (its markers, or the spec as JAX reads it: ``engine.walk.specs.read``), the parameter
never rebound, and a use of it that runs on every trace (no branch, loop body, handler or
``ensure_compile_time_eval`` in between). Pure: it reads the Analysis and the live scopes.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxrewrite.engine.analysis import Analysis, Use, UseKind
from jaxrewrite.engine.findings import closures, library, linen, staged, trees
from jaxrewrite.engine.findings.checks.traced_argument import RULE as TRACED
from jaxrewrite.engine.findings.flow import ARRAY, TREE, Flow, Sources, State, Tree, meet, sources
from jaxrewrite.engine.findings.passed import Passed, Sites, method_kind
from jaxrewrite.engine.findings.sure import Truth, statements
from jaxrewrite.engine.read.classes import DATACLASS
from jaxrewrite.engine.read.filters import Filters
from jaxrewrite.engine.read.lexed import code_mentions
from jaxrewrite.engine.read.nodes import child_nodes, name_assigned, walk
from jaxrewrite.engine.read.reading import Refused
from jaxrewrite.engine.read.recognise import classify
from jaxrewrite.engine.read.resolve import qualname, unquoted
from jaxrewrite.engine.read.scopes import Assigned, Defined, DefinedClass, Scope, ScopeTree
from jaxrewrite.engine.read.signature import Kind, Param, Signature
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import concrete_table
from jaxrewrite.engine.rulebook.diagnostics import Diagnostic
from jaxrewrite.engine.rulebook.table import FAMILIES, SIGNATURE_KEEPING, SpecKind, Transform
from jaxrewrite.engine.walk import specs
from jaxrewrite.errors import RewriteError

if TYPE_CHECKING:
    from jaxrewrite.engine.analyze import Analyzer

Function = ast.FunctionDef | ast.AsyncFunctionDef
CODE = TRACED.code

#: JAX's errors, as its messages name them.
INDEX = "TracerIntegerConversionError"
CONCRETE = "ConcretizationTypeError"
BOOL = "TracerBoolConversionError"
SHAPE = "TypeError (shapes must be concrete integers)"
SLICE = "IndexError (slice entries must be static integers)"
HASH = "TypeError (unhashable type: a tracer as a dict key)"
NOT_JAX = "TypeError (not a valid JAX type)"
ARRAY_CONVERSION = "TracerArrayConversionError"

#: Calls whose (any) argument JAX needs as a Python value, and what it raises.
_CONVERSIONS: dict[str, str] = {
    "builtins.range": INDEX,
    "operator.index": INDEX,
    "builtins.int": CONCRETE,
    "builtins.float": CONCRETE,
    "builtins.complex": CONCRETE,
    "builtins.bool": BOOL,
}
_ARANGE = "jax.numpy.arange"
#: Methods of a traced array that are the jnp function of the same name on it (``x.min(axis)``).
_ARRAY_METHODS = frozenset(
    {
        "sum",
        "min",
        "max",
        "mean",
        "prod",
        "std",
        "var",
        "argmin",
        "argmax",
        "all",
        "any",
        "cumsum",
        "cumprod",
        "squeeze",
        "repeat",
        "take",
        "swapaxes",
    }
)
#: NumPy's constructors, which ask a tracer for a NumPy array (``np.asarray(lb)`` under jit).
_NUMPY_ARRAYS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
#: How deep calls of the module's own functions are followed.
_HELPER_DEPTH = 3
#: Indexing a Python container with a tracer: (JAX's error, why).
_CONTAINER_ERRORS = {
    "dict": (HASH, "a dict key must be hashable"),
    "list": (INDEX, "a list index must be a Python int"),
}

#: Annotations no argument JAX traces can have: (qualname, what to call it).
_NEVER_TRACED: dict[str, str] = {
    "typing.Callable": "a function",
    "builtins.str": "a str",
    "builtins.bytes": "bytes",
    "builtins.type": "a class",
    "typing.Type": "a class",
}
_ENUMS = frozenset({"enum.Enum", "enum.Flag", "enum.StrEnum"})  # IntEnum/IntFlag values are ints
_NAMEDTUPLE = "typing.NamedTuple"
_CALLABLES = frozenset({"typing.Callable", "collections.abc.Callable"})


#: Every transform use, marked or not (as ``EXHAUSTIVE``), with the text searches that only skip
#: work that cannot matter: call sites where a def of the module is a first argument, and
#: function bodies with no def, class or decorator walked only when such a call needs them.
TRACE = Filters(marker_names=False, signature_lines=False, defer_bodies=True, first_arguments=True)

#: Text every module with a use of an ``abstract`` row contains (a cheap superset): their names.
_NEEDLES = tuple(
    sorted(
        {
            row.name.rpartition(".")[2]
            for rows in FAMILIES.values()
            for row in rows.values()
            if row.abstract
        }
    )
)


#: What follows a needle that names no transform: a "." (``pjit.jit_p``: something inside what
#: the name is; a transform is named by the last part of a reference) or ``import`` (the module
#: path of a from-import, ``from jax._src.pjit import reshard``, which binds the names after it).
_NOT_A_REFERENCE = re.compile(r"\s*\.|[ \t]+import\b")


def may_trace(text: str) -> bool:
    """Cheap pre-filter: False means ``findings.trace_findings`` finds nothing in ``text``: a use
    names its transform in code, never only inside another word, a docstring or a comment, nor as a
    module (over jax's source, 121 of the 240 files that hold a needle anywhere name one in code
    so)."""
    return any(needle in text for needle in _NEEDLES) and code_mentions(
        text, _NEEDLES, _NOT_A_REFERENCE
    )


def may_trace_bytes(data: bytes) -> bool:
    return any(needle.encode() in data for needle in _NEEDLES)


def PASS(result: Analysis, scopes: ScopeTree, tree: ast.Module, walk: Analyzer) -> None:
    """The trace-time analysis as a pass of ``analyze``: JR006 findings, and what they name."""
    defs = {id(func): scope for func, scope in scopes.defs}
    for diagnostic, func, name in findings(
        list(result.uses), defs, tree, result.source, result.header.enabled
    ):
        result.diagnostics.append(diagnostic)
        if name is not None:  # None: a field of a pytree argument, static in its class, not here
            result.must_be_static.append((func, name))
    result.diagnostics.extend(library.findings(tree, scopes, result.source))


def uses_jaxrewrite(module: ast.Module, enabled: bool) -> bool:
    """Does the module use jaxrewrite (its pragma, or an import of it)? Then the fix is a marker."""
    if enabled:
        return True
    for node in module.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").split(".")[0] == "jaxrewrite"
        ):
            return True
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "jaxrewrite" for a in node.names
        ):
            return True
    return False


@dataclass(frozen=True)
class Traced:
    """A parameter one use of a transform traces."""

    param: Param
    use_node: ast.expr
    transform: Transform
    #: What the module's visible calls pass to it (``engine.findings.passed``).
    passed: tuple[Passed, ...] = ()


def findings(
    uses: list[Use], defs: dict[int, Scope], module: ast.Module, src: Source, enabled: bool
) -> list[tuple[Diagnostic, Function, str | None]]:
    """JR006 for every traced parameter the body needs as a Python value (or JAX cannot trace)."""
    by_def: dict[int, list[Traced]] = {}
    targets: dict[int, Function] = {}
    staging: dict[int, tuple[ast.expr, Transform]] = {}
    classes = _Classes(module)
    sites: Sites | None = None
    for use in uses:
        func, transform, sig = use.target, use.transform, use.signature
        if id(func) not in defs or not (transform.abstract or transform.spec is SpecKind.DIFF):
            continue
        if not _signature_seen(use, func, defs[id(func)]):
            continue
        if transform.abstract:
            traced = traced_params(use, sig, transform, src)
        else:
            traced = _differentiated(use, sig)
        if traced is None:
            continue
        if sites is None:
            scope = defs[id(func)].module()
            sites = Sites(
                module,
                scope,
                lambda b: b.body.parent is not None and classes.plain(b, b.body.parent),
            )
            classes.owners = sites.owners  # the same walk found each method's class
        decorated = use.kind is UseKind.DECORATOR
        axes = transform.spec is SpecKind.AXES
        passed = {} if axes else sites.passed(use.node, func, decorated, defs[id(func)])
        targets[id(func)] = func
        if transform.abstract and transform.spec is not SpecKind.AXES:  # jit and kin stage calls
            staging.setdefault(id(func), (use.node, transform))
        seen = by_def.setdefault(id(func), [])
        names = {t.param.name for t in seen}
        seen.extend(
            Traced(p, use.node, transform, tuple(passed.get(p.name, ())))
            for p in traced
            if p.name not in names
        )
    out: list[tuple[Diagnostic, Function, str | None]] = []
    if not by_def:
        return out
    marker_fix = "jaxrewrite" in src.text and uses_jaxrewrite(module, enabled)
    for key, traced_list in by_def.items():
        func = targets[key]
        reader = _Body(func, defs[key], src, defs)
        arrays = reader.arrays(traced_list)
        located: set[tuple[int, int]] = set()
        for t in traced_list:
            found = list(reader.findings(t, classes, marker_fix, arrays - {t.param.name}))
            located.update((d.line, d.col) for d, _ in found)
            out.extend((d, func, t.param.name if fixable else None) for d, fixable in found)
        if key in staging:
            use_node, transform = staging[key]
            found_staged = staged.findings(reader, use_node, transform, src, located)
            out.extend((d, func, None) for d in found_staged)
    return out


def _signature_seen(use: Use, func: Function, scope: Scope) -> bool:
    """Does the transform see the def's own signature? Not through a decorator it cannot name."""
    node = use.node
    decorators = func.decorator_list
    if any(d is node for d in decorators):
        below = decorators[[id(d) for d in decorators].index(id(node)) + 1 :]
    else:
        below = decorators
    return all(
        classify(d, scope) is not None or qualname(d, scope) in SIGNATURE_KEEPING for d in below
    )


def _differentiated(use: Use, sig: Signature) -> list[Param] | None:
    """What grad and its kin trace, read only in the default form (the first parameter): their
    tracers hold values, so only a type JAX cannot trace at all fails there (``_Body.findings``)."""
    if any(kw.arg == use.transform.argnums or kw.arg is None for kw in use.written):
        return None
    first = [p for p in sig.params if p.position == 0 and p.kind is not Kind.VAR_POSITIONAL]
    return first or None


def traced_params(use: Use, sig: Signature, t: Transform, src: Source) -> list[Param] | None:
    """The parameters this use traces; None when the spec cannot be read (then nothing is said)."""
    params = [p for p in sig.params if p.kind not in (Kind.VAR_POSITIONAL, Kind.VAR_KEYWORD)]
    params = [p for p in params if not (p.markers & t.markers)]
    try:
        meaning = specs.read(use, sig, src).meaning
    except (Refused, RewriteError):
        return None
    nums = meaning.get(t.argnums, frozenset())
    names = meaning.get(t.argnames, frozenset()) if t.argnames else frozenset()
    return [p for p in params if p.position not in nums and p.name not in names]


class _Classes:
    """Classes of the module whose instances are surely not pytrees nor arrays."""

    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self._other_uses: set[str] | None = None
        self.owners: dict[int, ast.ClassDef] = {}

    def plain(self, binding: DefinedClass, scope: Scope) -> bool:
        return self.plain_node(binding.node, scope)

    def owner(self, func: Function) -> ast.ClassDef | None:
        """The class whose body defines ``func`` (a method), if any (``Sites`` finds them)."""
        return self.owners.get(id(func))

    def plain_node(self, node: ast.ClassDef, scope: Scope) -> bool:
        if node.keywords or any(
            not (isinstance(b, ast.Name) and b.id == "object") for b in node.bases
        ):
            return False
        if any(
            qualname(d.func if isinstance(d, ast.Call) else d, scope) != DATACLASS
            for d in node.decorator_list
        ):
            return False
        if any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__jax_array__"
            for s in node.body
        ):
            return False
        return node.name not in self.registered()

    def registered(self) -> set[str]:
        """Names used other than as a constructor, an annotation or isinstance's class: such a
        class may be registered as a pytree (``register_pytree_node(C, ...)``) or subclassed."""
        if self._other_uses is None:
            allowed: set[int] = set()
            for node in walk(self.module):
                if isinstance(node, ast.Call):
                    allowed.add(id(node.func))
                    if (
                        isinstance(node.func, ast.Name)
                        and node.func.id == "isinstance"
                        and len(node.args) == 2
                    ):
                        allowed.add(id(node.args[1]))
                elif isinstance(node, ast.arg) and node.annotation is not None:
                    allowed.update(id(n) for n in walk(node.annotation))
                elif (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and node.returns is not None
                ):
                    allowed.update(id(n) for n in walk(node.returns))
                elif isinstance(node, ast.AnnAssign):
                    allowed.update(id(n) for n in walk(node.annotation))
            self._other_uses = {
                n.id for n in walk(self.module) if isinstance(n, ast.Name) and id(n) not in allowed
            }
        return self._other_uses


class _Body:
    """One def's body: its annotations, what it rebinds, and the uses that run on every trace."""

    def __init__(
        self, func: Function, scope: Scope, src: Source, defs: dict[int, Scope], depth: int = 0
    ) -> None:
        self.func = func
        self.scope = scope
        self.src = src
        self.defs = defs
        self.depth = depth
        #: Flows of the module's functions this body calls, by (def, what the call passes).
        self._flows: dict[tuple[int, frozenset[tuple[str, State]]], tuple[_Body, Flow]] = {}
        self._sources: Sources | None = None
        self._inner: dict[str, closures.Function] | None = None
        #: The bodies of the functions this one runs, read once each.
        self._bodies: dict[int, _Body] = {}
        self.stored: set[str] = set()
        self.local_dicts: dict[str, list[ast.expr]] = {}
        self.params = {a.arg for a in walk(func.args) if isinstance(a, ast.arg)}
        for node in (n for stmt in func.body for n in walk(stmt)):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                self.stored.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.stored.add(node.name)
            elif isinstance(node, ast.alias):
                self.stored.add((node.asname or node.name).partition(".")[0])
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.stored.update(node.names)
            elif isinstance(node, ast.arg):
                self.stored.add(node.arg)  # a lambda's or nested def's parameter may shadow ours
            if (pair := name_assigned(node)) is not None:
                self.local_dicts.setdefault(pair[0], []).append(pair[1])
        self._sure: list[ast.AST | Truth] | None = None

    # -- names -----------------------------------------------------------------------------

    def resolve(self, expr: ast.expr) -> str | None:
        """What a name in the body denotes, when no local binding can hide it."""
        head = expr
        while isinstance(head, ast.Attribute):
            head = head.value
        if not isinstance(head, ast.Name) or head.id in self.stored or head.id in self.params:
            return None
        found = qualname(expr, self.scope)
        if found is not None:
            return found
        if isinstance(expr, ast.Name) and self.scope.lookup(expr.id) is None:
            return f"builtins.{expr.id}"
        return None

    def annotation(self, param: Param) -> ast.expr | None:
        return unquoted(param.node.annotation)

    def scalar_or_array(self, param: Param) -> bool:
        ann = self.annotation(param)
        return ann is not None and trees.scalar_or_array(ann, self.scope)

    def tree(self, param: Param, classes: _Classes) -> Tree | None:
        """The fields of the pytree class of the module that the parameter is annotated with, or
        whose method takes it as ``self``."""
        ann = self.annotation(param)
        if ann is not None:
            found = trees.annotated(ann, self.scope, self.src)
            return found if isinstance(found, Tree) else None
        owner = self._self_of(param, classes)
        if owner is None or self.scope.parent is None:
            return None
        return trees.tree((DefinedClass(owner, self.scope), self.scope.parent), self.src)

    def untraceable(self, param: Param, classes: _Classes) -> str | None:
        """What the annotation (or, for ``self``, the class) says the value is, when no traced
        value can be one."""
        ann = self.annotation(param)
        if ann is None:
            return self._self_of_plain_class(param, classes)
        name = trees.type_name(ann, self.scope)
        if name in _NEVER_TRACED:
            return _NEVER_TRACED[name]
        if isinstance(ann, ast.Subscript) or not isinstance(ann, ast.Name):
            return None
        found = self.scope.lookup(ann.id)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0], DefinedClass):
            return None
        binding = found[0][0]
        bases = {qualname(b, self.scope) for b in binding.node.bases}
        if bases & _ENUMS:
            return f"a member of the enum {ann.id}"
        if _NAMEDTUPLE in bases and self._holds_functions(binding):
            return f"a NamedTuple holding functions ({ann.id})"
        if binding.body.parent is not None and classes.plain(binding, binding.body.parent):
            return f"an instance of {ann.id}, a class of this module that is not a pytree"
        return None

    def arrays(self, traced: list[Traced]) -> frozenset[str]:
        """The traced parameters that are surely arrays (a visible call passes each a number or
        an array, and none anything else; or a scalar or array annotation), never rebound."""
        out = set()
        for t in traced:
            passed = [p.untraceable is None for p in t.passed]
            surely = (passed and all(passed)) or self.scalar_or_array(t.param)
            if surely and t.param.name not in self.stored:
                out.add(t.param.name)
        return frozenset(out)

    def _self_of_plain_class(self, param: Param, classes: _Classes) -> str | None:
        """``self`` of a method of a plain class (the most common jit mistake)."""
        owner = self._self_of(param, classes)
        parent = self.scope.parent
        if owner is None or parent is None or not classes.plain_node(owner, parent):
            return None
        return f"an instance of {owner.name} as self, a class of this module that is not a pytree"

    def _self_of(self, param: Param, classes: _Classes) -> ast.ClassDef | None:
        """The class whose instance the parameter is, as ``self`` of an instance method."""
        owner = classes.owner(self.func)
        positional = [*self.func.args.posonlyargs, *self.func.args.args]
        if owner is None or not positional or positional[0] is not param.node:
            return None
        return owner if method_kind(self.func, self.scope) == "instance" else None

    def _holds_functions(self, binding: DefinedClass) -> bool:
        for stmt in binding.node.body:
            if isinstance(stmt, ast.AnnAssign):
                ann = (
                    stmt.annotation.value
                    if isinstance(stmt.annotation, ast.Subscript)
                    else stmt.annotation
                )
                if qualname(ann, binding.body) in _CALLABLES:
                    return True
        return False

    # -- the body --------------------------------------------------------------------------

    def sure(self) -> list[ast.AST | Truth]:
        """The expressions evaluated on every trace, in order."""
        if self._sure is None:
            out: list[ast.AST | Truth] = []
            statements(self.func.body, out, self.resolve)
            self._sure = out
        return self._sure

    def findings(
        self,
        t: Traced,
        classes: _Classes,
        uses_jaxrewrite: bool,
        plain: frozenset[str] = frozenset(),
    ) -> Iterator[tuple[Diagnostic, bool]]:
        """Each finding, with whether making its parameter static fixes it (not a pytree field)."""
        p = t.param
        what = self.untraceable(p, classes)
        if what is not None:
            how = f"{self.func.name!r} takes {what} as {p.name!r}"
            yield (
                self._diagnostic(p.node.annotation or p.node, t, NOT_JAX, how, uses_jaxrewrite),
                True,
            )
            return
        for passed in t.passed:
            if passed.untraceable is not None:
                how = (
                    f"a call (line {passed.expr.lineno}) passes {passed.untraceable} as {p.name!r}"
                )
                yield self._diagnostic(passed.expr, t, NOT_JAX, how, uses_jaxrewrite), True
                return
        if not t.transform.abstract:
            return  # differentiated: its tracers are concrete, so only an untraceable type fails
        numbers = any(passed.untraceable is None for passed in t.passed)
        if _has_default(self.func, p) and not numbers:
            # A default is a Python value: the body fails only where a call passes the parameter,
            # and no call in view says that one does (jax's own _lu_blocked(a, block_size=128)
            # under vmap is never passed block_size). A type that can never be traced is still
            # reported, above: passing one always fails.
            return
        seed: State = ARRAY if numbers or self.scalar_or_array(p) else self.tree(p, classes)
        if seed is None and self.annotation(p) is not None:
            return  # a container or another type: its structure may be all the body needs
        flow = self.flow({p.name: seed or TREE}, plain)
        seen: set[tuple[int, int]] = set()
        for node in self.sure():
            found = self._use(node, flow)
            if found is None:
                continue
            where, error, how = found
            key = (where.lineno, where.col_offset)
            if key in seen:
                continue
            seen.add(key)
            if not isinstance(seed, Tree):
                yield self._diagnostic(where, t, error, how, uses_jaxrewrite), True
                continue
            fix = _field_fix(where, flow, seed, uses_jaxrewrite)
            yield self._diagnostic(where, t, error, how, uses_jaxrewrite, fix), False

    def _use(self, node: ast.AST | Truth, flow: Flow) -> tuple[ast.expr, str, str] | None:
        """Does ``node`` need a traced value as a Python value?"""
        if isinstance(node, Truth):
            if flow.state(node.expr) == ARRAY:
                what = (
                    "the truth value of a comparison of it"
                    if isinstance(node.expr, ast.Compare)
                    else "its truth value"
                )
                return node.expr, BOOL, f"{node.how} needs {what}"
            return None
        if isinstance(node, ast.Call):
            return self._call_use(node, flow)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                bounds = (node.slice.lower, node.slice.upper, node.slice.step)
                if any(b is not None and flow.traced(b) for b in bounds):
                    return (
                        node,
                        f"{SLICE}, or {INDEX} for a list",
                        "a slice bound must be a Python int",
                    )
            elif flow.traced(node.slice):
                kind = self._container(node.value)
                if kind is not None:
                    return node, *_CONTAINER_ERRORS[kind]
        return None

    def _call_use(self, node: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        callee = self.resolve(node.func)
        error = _CONVERSIONS.get(callee or "")
        args = [*node.args, *(kw.value for kw in node.keywords)]
        if error is not None:
            need = ARRAY if error == BOOL else None
            if any(flow.traced(a) and (need is None or flow.state(a) == need) for a in args):
                return node, error, f"{ast.unparse(node.func)}() needs it as a Python number"
            return None
        if callee in _NUMPY_ARRAYS and node.args:
            parts, leaves = [node.args[0]], []
            while parts:  # the entries of nested list literals, each asked for its value
                part = parts.pop()
                if isinstance(part, (ast.List, ast.Tuple)):
                    parts.extend(part.elts)
                else:
                    leaves.append(part)
            if any(flow.state(e) == ARRAY for e in leaves):
                how = f"{ast.unparse(node.func)}() asks it for a NumPy array"
                return node, ARRAY_CONVERSION, how
            return None
        if callee == _ARANGE:
            if any(flow.traced(a) for a in args):
                return node, CONCRETE, "jnp.arange needs its bounds as Python numbers"
            return None
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in ("item", "tolist")
            and flow.state(func.value) == ARRAY
        ):
            return node, CONCRETE, f".{func.attr}() needs a concrete array"
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _ARRAY_METHODS
            and flow.array(func.value)
        ):
            callee = f"jax.numpy.{func.attr}"  # x.min(axis) is jnp.min(x, axis): the table's rows
            node = ast.copy_location(ast.Call(func, [func.value, *node.args], node.keywords), node)
        for argument, param in self._concrete_arguments(node, callee):
            if flow.traced(argument):
                return (
                    node,
                    SHAPE,
                    f"{ast.unparse(node.func)}() needs its {param!r} as a Python value",
                )
        return self._applied_use(node, flow) or self._helper_use(node, flow)

    def _applied_use(self, call: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        """A sink in the ``__call__`` of a Linen module ``call`` applies (``linen.applied``)."""
        found = None
        if self.depth < _HELPER_DEPTH:
            found = linen.applied(call, self.scope, self.stored | self.params)
        scope = self.defs.get(id(found[0])) if found is not None else None
        if found is None or scope is None:
            return None
        target, args, keywords = found
        seeds = _seeds(target, args, keywords, flow, offset=1)
        if not seeds:
            return None
        body = self._body(target, scope)
        inner = body.flow(seeds)
        for node in body.sure():
            use = body._use(node, inner)
            if use is not None:
                return call, use[1], f"the module's __call__ (line {use[0].lineno}) {use[2]}"
        return None

    def _concrete_arguments(
        self, call: ast.Call, callee: str | None
    ) -> Iterator[tuple[ast.expr, str]]:
        """The arguments of a call that JAX needs as Python values (``concrete_table``)."""
        if callee is None and isinstance(call.func, ast.Attribute) and call.func.attr == "reshape":
            if call.args and not call.keywords:
                yield (
                    (
                        call.args[0]
                        if len(call.args) == 1
                        else ast.Tuple(list(call.args), ast.Load())
                    ),
                    "shape",
                )
            return
        lifting = concrete_table.lifting()
        passes = {kw.arg for kw in call.keywords}
        for position, keyword in concrete_table.by_function().get(callee or "", ()):
            if None in passes or passes & set(lifting.get((callee or "", keyword), ())):
                continue  # a keyword that may let it be traced (jnp.delete's assume_unique_indices)
            for kw in call.keywords:
                if kw.arg == keyword:
                    yield kw.value, keyword
            starred = any(isinstance(a, ast.Starred) for a in call.args[: (position or 0) + 1])
            if position is not None and position < len(call.args) and not starred:
                yield call.args[position], keyword

    # -- the module's own functions, by summary ------------------------------------------------

    def _helpers(
        self, call: ast.Call | ast.Attribute, flow: Flow
    ) -> list[tuple[_Body, dict[str, State]]]:
        """The functions a call runs (this def's inner ones, one of the module's, or a method of a
        traced pytree; a property read runs its getter), each with what the call passes it and
        what it closes over (traced values only)."""
        if self.depth >= _HELPER_DEPTH:
            return []
        member = self._member(call, flow)
        if member is not None or isinstance(call, ast.Attribute):
            return [] if member is None else [member]
        if self._inner is None:
            self._inner = closures.inner_defs(self.func, self.sources())
        out: list[tuple[_Body, dict[str, State]]] = []
        for run in closures.runs(call, self.resolve, self._inner):
            scope = self.defs.get(id(run.func))
            passed = {} if run.args is None else _seeds(run.func, run.args, run.keywords, flow)
            if scope is None or passed is None:
                continue
            body = self._body(run.func, scope)
            own = body.stored | body.params
            closed = {n: v for n, v in flow.names.items() if v is not None and n not in own}
            if closed or passed:
                out.append((body, {**closed, **passed}))
        func = call.func
        if (
            not isinstance(func, ast.Name)
            or func.id in flow.names
            or func.id in self.params
            or func.id in self.stored
        ):
            return out
        found = self.scope.lookup(func.id)
        if found is None or len(found[0]) != 1 or not isinstance(found[0][0], Defined):
            return out
        target = found[0][0].node
        scope = self.defs.get(id(target))
        if scope is None or target.decorator_list or target is self.func:
            return out
        seeds = _seeds(target, call.args, call.keywords, flow)
        if seeds:
            out.append((self._body(target, scope), seeds))
        return out

    def _body(self, func: Function, scope: Scope) -> _Body:
        if id(func) not in self._bodies:
            self._bodies[id(func)] = _Body(func, scope, self.src, self.defs, self.depth + 1)
        return self._bodies[id(func)]

    def _member(
        self, expr: ast.Call | ast.Attribute, flow: Flow
    ) -> tuple[_Body, dict[str, State]] | None:
        """``tree.method(...)``, ``tree(...)`` (its ``__call__``) or ``tree.prop`` of a traced
        pytree."""
        if isinstance(expr, ast.Attribute):
            owner, name, args, keywords = expr.value, expr.attr, [], []
        elif isinstance(expr.func, ast.Attribute):
            owner, name, args, keywords = expr.func.value, expr.func.attr, expr.args, expr.keywords
        else:
            owner, name, args, keywords = expr.func, "__call__", expr.args, expr.keywords
        tree = flow.state(owner)
        found = tree.member(name) if isinstance(tree, Tree) else None
        if found is None or (found[0] == "property") != isinstance(expr, ast.Attribute):
            return None
        target = found[1]
        scope = self.defs.get(id(target))
        passed = _seeds(target, args, keywords, flow, offset=1)
        if scope is None or passed is None:
            return None
        return self._body(target, scope), {target.args.args[0].arg: tree, **passed}

    def _helper_flows(self, call: ast.Call | ast.Attribute, flow: Flow) -> list[tuple[_Body, Flow]]:
        out = []
        for body, seeds in self._helpers(call, flow):
            key = (id(body.func), frozenset(seeds.items()))
            if key not in self._flows:
                self._flows[key] = (body, body.flow(seeds))
            out.append(self._flows[key])
        return out

    def _helper_use(self, call: ast.Call, flow: Flow) -> tuple[ast.expr, str, str] | None:
        for body, inner in self._helper_flows(call, flow):
            for node in body.sure():
                use = body._use(node, inner)
                if use is not None:
                    where, error, how = use
                    return call, error, f"{body.func.name}() (line {where.lineno}) {how}"
        return None

    def returns(self, call: ast.Call | ast.Attribute, flow: Flow) -> State:
        """The state of what a call of one of the module's functions (or a method or property of
        a traced pytree) returns."""
        found = self._helper_flows(call, flow)
        if len(found) != 1:
            return None
        body, inner = found[0]
        state: State = "top"
        for node in _own_nodes(body.func.body):
            if isinstance(node, ast.Return):
                state = meet(state, inner.state(node.value) if node.value is not None else None)
        return None if state == "top" else state

    def sources(self) -> Sources:
        if self._sources is None:
            self._sources = sources(self.func.body)
        return self._sources

    def flow(
        self, seeds: dict[str, State], plain: frozenset[str] = frozenset(), staged: bool = False
    ) -> Flow:
        return Flow(self.sources(), seeds, self.resolve, self.returns, plain, staged)

    def _container(self, expr: ast.expr) -> str | None:
        """``dict``/``list`` when ``expr`` is surely a Python dict or list/tuple (a literal, or a
        name bound once to one): indexing it needs the index as a Python value."""
        if isinstance(expr, ast.Name):
            if expr.id in self.stored:
                values = self.local_dicts.get(expr.id, [])
                if len(values) != 1 or not _assigned_once(self.func, expr.id):
                    return None
                expr = values[0]
            else:
                found = self.scope.lookup(expr.id)
                if found is None or len(found[0]) != 1 or not isinstance(found[0][0], Assigned):
                    return None
                expr = found[0][0].value
        if isinstance(expr, ast.Dict):
            return "dict"
        return "list" if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)) else None

    def _diagnostic(
        self,
        node: ast.AST,
        t: Traced,
        error: str,
        how: str,
        uses_jaxrewrite: bool,
        fix: str | None = None,
    ) -> Diagnostic:
        p, tr = t.param, t.transform
        fix = fix or fix_text(p, tr, uses_jaxrewrite)
        passed = " (when a call passes it)" if _has_default(self.func, p) else ""
        line, col = t.use_node.lineno, t.use_node.col_offset + 1
        return Diagnostic.at(
            self.src,
            node,
            TRACED,
            name=p.name,
            transform=tr.name,
            line=line,
            col=col,
            how=how,
            error=error,
            passed=passed,
            fix=fix,
        )


def _field_fix(where: ast.expr, flow: Flow, tree: Tree, uses_jaxrewrite: bool) -> str:
    """The fix of a finding on a traced pytree argument: its field made static in the class."""
    fields = sorted(
        {
            ast.unparse(a)
            for a in ast.walk(where)
            if (
                isinstance(a, ast.Subscript)
                or (isinstance(a, ast.Attribute) and a.attr in dict(tree.fields))
            )
            and isinstance(flow.state(a.value), Tree)
        }
    )
    what = "its parts are fields"
    if fields:
        what = f"{' and '.join(fields)} {'are fields' if len(fields) > 1 else 'is a field'}"
    if uses_jaxrewrite:
        how = f"annotate the field Static[...] in {tree.name}"
    elif tree.static:
        how = f"declare the field with {tree.static}"
    else:
        how = "pass the value as an argument of its own, static for the transform"
    return f"{what} of {tree.name} that JAX traces: {how}"


def _seeds(
    target: Function, args: list[ast.expr], keywords: list[ast.keyword], flow: Flow, offset: int = 0
) -> dict[str, State] | None:
    """What a call passes a def's parameters (after the first ``offset``: a method's self), by
    name (traced values only); None where it cannot be read (``*args``, ``**kwargs``, a keyword
    the def does not take)."""
    params = [*target.args.posonlyargs, *target.args.args][offset:]
    if any(isinstance(a, ast.Starred) for a in args) or len(args) > len(params):
        return None
    seeds = {param.arg: flow.state(arg) for arg, param in zip(args, params)}
    names = {a.arg for a in (*params, *target.args.kwonlyargs)}
    for kw in keywords:
        if kw.arg is None or kw.arg not in names:
            return None
        seeds[kw.arg] = flow.state(kw.value)
    return {k: v for k, v in seeds.items() if v is not None}


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a body outside nested defs, classes and lambdas."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(child_nodes(node))


def _assigned_once(func: Function, name: str) -> bool:
    count = sum(
        1
        for node in walk(func)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
    )
    return count == 1


def _has_default(func: Function, p: Param) -> bool:
    args = func.args
    if p.kind is Kind.KEYWORD_ONLY:
        index = args.kwonlyargs.index(p.node)
        return args.kw_defaults[index] is not None
    positional = [*args.posonlyargs, *args.args]
    index = positional.index(p.node)
    return index >= len(positional) - len(args.defaults)


def fix_text(p: Param, t: Transform, uses_jaxrewrite: bool) -> str:
    if uses_jaxrewrite:
        return f"annotate it '{p.name}: Static[...]' (jaxrewrite check --fix does)"
    if t.spec is SpecKind.AXES:
        return f"map it with None in {t.argnums}, or make it static for an enclosing jit"
    if t.argnames is not None and p.kind in (Kind.POSITIONAL_OR_KEYWORD, Kind.KEYWORD_ONLY):
        return f"pass {t.argnames}=({p.name!r},) to {t.name}"
    if p.position is not None:
        return f"pass {t.argnums}=({p.position},) to {t.name}"
    return f"make it static for {t.name}"

"""The model of tests/engine/test_properties.py, shared with tests/engine/test_properties_sites.py:
random signatures, wrapper stacks, decorator spellings and call styles as a ``Case``, rendered to a
module (``render``), and run against what the model says is static (``_exercise``).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

FILENAME = "prop_module.py"

# -- the model ---------------------------------------------------------------------------

POSONLY, REGULAR, KWONLY = "posonly", "regular", "kwonly"

#: Parameter names, some of them words the rewriter itself writes or reads.
NAMES = (
    "x",
    "n",
    "m",
    "k",
    "fun",
    "size",
    "static_argnums",
    "dtype",
    "transform",
    "partial",
    "a",
    "b",
)

#: How a Static parameter is spelled (each needs only the module's fixed imports).
MARKERS = (
    "Static[int]",
    "Static",
    "jaxrewrite.Static[int]",
    '"Static[int]"',
    "'Static'",
    "Shape",
    "Annotated[int, jaxrewrite.STATIC]",
)
#: How any other parameter is annotated: never a marker, sometimes Annotated with other metadata.
PLAIN = ("", "float", '"float"', 'Annotated[float, "note"]')

WRAPPERS = ("passthrough", "Counted", "wrapped")  # no wraps / callable object / functools.wraps
SPELLINGS = ("jit", "partial", "names", "nums", "both", "alias")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    position: int | None  # None for keyword-only
    default: bool
    static: bool  # annotated Static
    annotation: str


@dataclass(frozen=True)
class Case:
    params: tuple[Param, ...]
    varargs: bool
    varkw: bool
    wrappers: tuple[str, ...]  # outermost first, between the transform and the def
    spelling: str
    user_names: tuple[str, ...] | None  # None: the decorator does not pass the keyword
    user_nums: tuple[int, ...] | None
    literal_style: tuple[str, str]  # for names, nums: "tuple" | "list" | "scalar"
    quote: str
    multiline: bool
    pragma: str  # "header" | "absent" | "below"
    # How the calls pass each parameter: "pos", "kw" or "omit" (only with a default).
    modes: dict[str, str] = field(hash=False, compare=False, default_factory=dict)
    extra_args: int = 0
    extra_kwargs: int = 0
    change: int = 0  # which passed static the third call changes

    @property
    def has_static(self) -> bool:
        return any(p.static for p in self.params)

    @property
    def rewritten(self) -> bool:
        return self.has_static and self.pragma == "header"

    @property
    def n_positional(self) -> int:
        return sum(1 for p in self.params if p.position is not None)

    def user_positions(self) -> set[int]:
        """The user's ``static_argnums`` (never negative here, see ``cases``)."""
        return set(self.user_nums or ())

    def ideal_static(self, p: Param) -> bool:
        """Annotated, or named by the user's own lists (completed both ways by the rewrite)."""
        return p.static or p.name in (self.user_names or ()) or p.position in self.user_positions()

    def ideal_lists(self) -> tuple[set[int], set[str]]:
        if self.user_nums is not None and self.user_names is not None:
            # Both written: JAX reads them apart, so they stay as written and each annotated
            # parameter joins both (issue 20, item 4).
            nums = set(self.user_nums) | {
                p.position for p in self.params if p.static and p.position is not None
            }
            return nums, set(self.user_names) | {
                p.name for p in self.params if p.static and p.kind != POSONLY
            }
        nums = {p.position for p in self.params if p.position is not None and self.ideal_static(p)}
        names = {p.name for p in self.params if p.kind != POSONLY and self.ideal_static(p)}
        names |= set(self.user_names or ())  # names only **kwargs takes are kept as given
        return nums, names

    def signature_visible(self) -> bool:
        """Does inspect.signature of what the transform gets reach the def?"""
        return all(w == "wrapped" for w in self.wrappers)

    def effective_lists(self) -> tuple[set[int], set[str]]:
        """The lists JAX ends up using at run time."""
        if self.rewritten:
            return self.ideal_lists()
        nums, names = self.user_nums, self.user_names
        if nums is None and names is None:
            return set(), set()
        if nums is not None and names is not None or not self.signature_visible():
            return set(nums or ()), set(names or ())
        # jax.api_util.infer_argnums_and_argnames: the missing list from the signature.
        if nums is None:
            assert names is not None
            inferred = {p.position for p in self.params if p.kind == REGULAR and p.name in names}
            return inferred, set(names)  # type: ignore[return-value]
        return set(nums), {p.name for p in self.params if p.kind == REGULAR and p.position in nums}

    def static_in_calls(self, p: Param) -> bool:
        """Is a passed argument for ``p`` static, given how the calls pass it?"""
        nums, names = self.effective_lists()
        mode = self.modes[p.name]
        if mode == "pos":
            return p.position in nums
        if mode == "kw":
            return p.name in names
        return self.ideal_static(p)  # omitted: the default is a constant either way


# -- strategies ----------------------------------------------------------------------------


@st.composite
def signatures(draw: st.DrawFn, allow_static: bool = True) -> tuple[tuple[Param, ...], bool, bool]:
    n_posonly = draw(st.integers(0, 2))
    n_regular = draw(st.integers(0, 3))
    n_kwonly = draw(st.integers(0, 2))
    total = n_posonly + n_regular + n_kwonly
    names = draw(st.permutations(NAMES))[:total]
    n_positional = n_posonly + n_regular
    first_default = draw(st.integers(0, n_positional))  # Python: defaults are trailing
    params = []
    for i, name in enumerate(names):
        kind = POSONLY if i < n_posonly else REGULAR if i < n_positional else KWONLY
        default = i >= first_default if kind != KWONLY else draw(st.booleans())
        static = allow_static and draw(st.booleans())
        annotation = draw(st.sampled_from(MARKERS if static else PLAIN))
        params.append(Param(name, kind, i if kind != KWONLY else None, default, static, annotation))
    return tuple(params), draw(st.booleans()), draw(st.booleans())


def _subset(draw: st.DrawFn, items: list[Any]) -> tuple[Any, ...]:
    return (
        tuple(draw(st.lists(st.sampled_from(items), unique=True, max_size=len(items))))
        if items
        else ()
    )


@st.composite
def cases(draw: st.DrawFn, allow_static: bool = True, pragma: str | None = None) -> Case:
    params, varargs, varkw = draw(signatures(allow_static))
    spelling = draw(st.sampled_from(SPELLINGS))
    # The user's own lists may name any parameter JAX accepts there, Static or not:
    # positions of positional parameters, names of parameters that can be passed by keyword.
    positions = [p.position for p in params if p.position is not None]
    keywordable = [p.name for p in params if p.kind != POSONLY]
    if varkw:
        keywordable.append(
            "extra0"
        )  # a name only **kwargs takes: JAX accepts it, the rewrite keeps it
    pragma = pragma or draw(st.sampled_from(["header", "header", "header", "absent", "below"]))
    user_names = _subset(draw, keywordable) if spelling in ("names", "both") else None
    user_nums = _subset(draw, positions) if spelling in ("nums", "both") else None
    # Negative numbers are not drawn: JAX resolves them against the arguments each call passes,
    # and the rewrite keeps them as written (tests/engine/test_execution.py pins that separately).
    styles = st.sampled_from(["tuple", "list", "scalar"])
    # Call style: a prefix passed by position, the rest by keyword or left to its default.
    positional = [p for p in params if p.position is not None]
    must = sum(1 for p in positional if p.kind == POSONLY and not p.default)
    cut = draw(st.integers(must, len(positional)))
    modes: dict[str, str] = {}
    for p in params:
        if p.position is not None and p.position < cut:
            modes[p.name] = "pos"
        elif p.kind == POSONLY:
            modes[p.name] = "omit"  # it has a default: cut >= must
        else:
            modes[p.name] = draw(st.sampled_from(["kw", "omit"])) if p.default else "kw"
    return Case(
        params=params,
        varargs=varargs,
        varkw=varkw,
        wrappers=tuple(draw(st.sampled_from(WRAPPERS)) for _ in range(draw(st.integers(0, 2)))),
        spelling=spelling,
        user_names=user_names,
        user_nums=user_nums,
        literal_style=(draw(styles), draw(styles)),
        quote=draw(st.sampled_from(["'", '"'])),
        multiline=draw(st.booleans()),
        pragma=pragma,
        modes=modes,
        extra_args=draw(st.integers(0, 2)) if varargs and cut == len(positional) else 0,
        extra_kwargs=draw(st.integers(0, 2)) if varkw else 0,
        change=draw(st.integers(0, 10)),
    )


# -- rendering -------------------------------------------------------------------------------

HEAD = """\
import functools
from functools import partial
from typing import Annotated

import jax
import jaxrewrite
from jaxrewrite import Static

Shape = Static[int]  # a module-level alias
_Tracer = jax.core.Tracer
_TRACES = []
my_jit = partial(jax.jit, donate_argnums=())


def _seen(value):
    return "T" if isinstance(value, _Tracer) else ("V", value)


def passthrough(func):
    def wrapper(*args, **kwargs):  # no functools.wraps: the signature is hidden
        return func(*args, **kwargs)
    return wrapper


class Counted:
    def __init__(self, func):
        self.func = func

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)


def wrapped(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper

"""


def _literal(values: tuple[int | str, ...], style: str, quote: str) -> str:
    def one(v: object) -> str:
        return f"{quote}{v}{quote}" if isinstance(v, str) else repr(v)

    if style == "scalar" and len(values) == 1:
        return one(values[0])
    inner = ", ".join(one(v) for v in values)
    if style == "list":
        return f"[{inner}]"
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _decorator(case: Case) -> list[str]:
    """The transform's decorator, one or several lines."""
    if case.spelling == "jit":
        return ["@jax.jit"]
    if case.spelling == "alias":
        return ["@my_jit"]
    parts = ["jax.jit"]
    if case.user_names is not None:
        parts.append(
            f"static_argnames={_literal(case.user_names, case.literal_style[0], case.quote)}"
        )
    if case.user_nums is not None:
        parts.append(
            f"static_argnums={_literal(case.user_nums, case.literal_style[1], case.quote)}"
        )
    if not case.multiline:
        return [f"@partial({', '.join(parts)})"]
    return ["@partial(", *(f"    {part},  # {i}" for i, part in enumerate(parts)), ")"]


def _default(case: Case, p: Param) -> object:
    i = case.params.index(p)
    return 20 + i if case.ideal_static(p) else 40.0 + i


def _signature(case: Case) -> str:
    def text(p: Param) -> str:
        out = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default:
            out += f" = {_default(case, p)!r}" if p.annotation else f"={_default(case, p)!r}"
        return out

    parts = [text(p) for p in case.params if p.kind == POSONLY]
    if parts:
        parts.append("/")
    parts += [text(p) for p in case.params if p.kind == REGULAR]
    kwonly = [text(p) for p in case.params if p.kind == KWONLY]
    if case.varargs:
        parts.append("*args")
    elif kwonly:
        parts.append("*")
    parts += kwonly
    if case.varkw:
        parts.append("**kwargs")
    return ", ".join(parts)


def _body(case: Case) -> list[str]:
    record = [f"{p.name!r}: _seen({p.name})" for p in case.params]
    if case.varargs or case.varkw:
        record.append("'*': " + ("[_seen(_a) for _a in args]" if case.varargs else "[]"))
        record.append(
            "'**': " + ("{_k: _seen(_v) for _k, _v in kwargs.items()}" if case.varkw else "{}")
        )
    lines = [f"    _TRACES.append({{{', '.join(record)}}})", "    _acc = 0.0"]
    for p in case.params:
        if case.static_in_calls(p):  # a static drives Python control flow
            lines.append(f"    for _ in range({p.name}):")
            lines.append("        _acc = _acc + 1.0")
        else:
            lines.append(f"    _acc = _acc + {p.name}")
    if case.varargs:
        lines.append("    _acc = _acc + sum(args)")
    if case.varkw:
        lines.append("    _acc = _acc + sum(kwargs.values())")
    lines.append("    return _acc")
    return lines


@dataclass(frozen=True)
class Rendered:
    text: str
    deco_lines: range  # 0-based line indices of the transform's decorator


def render(case: Case) -> Rendered:
    head = HEAD
    if case.pragma == "header":
        head = "# jaxrewrite: enable\n" + head
    elif case.pragma == "below":
        head = head.replace(
            "from functools import partial\n",
            "from functools import partial\n# jaxrewrite: enable\n",
        )
    lines = head.splitlines()
    start = len(lines)
    lines += _decorator(case)
    deco = range(start, len(lines))
    lines += [f"@{w}" for w in case.wrappers]
    lines.append(f"def f({_signature(case)}):")
    lines += _body(case)
    return Rendered("\n".join(lines) + "\n", deco)


# -- reading the rewritten decorator ----------------------------------------------------------


def _static_keywords(text: str) -> dict[str, tuple[Any, ...]]:
    """The static keywords the transform gets, read from the rewritten ``f``'s first decorator."""
    tree = ast.parse(text)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    deco = func.decorator_list[0]
    assert isinstance(deco, ast.Call), ast.unparse(deco)
    return _keywords_of(deco, ("static_argnums", "static_argnames"))


def _as_tuple(value: object) -> tuple[Any, ...]:
    """A spec as JAX reads it: a scalar is a one-element list."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _keywords_of(call: ast.Call, wanted: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    """The literal values of the ``wanted`` keywords one call passes."""
    return {
        kw.arg: _as_tuple(ast.literal_eval(kw.value)) for kw in call.keywords if kw.arg in wanted
    }


# -- text properties ------------------------------------------------------------------------


def _case(params: tuple[Param, ...], modes: dict[str, str], **kw: object) -> Case:
    fields: dict[str, Any] = {
        "varargs": False,
        "varkw": False,
        "wrappers": (),
        "spelling": "jit",
        "user_names": None,
        "user_nums": None,
        "literal_style": ("tuple", "tuple"),
        "quote": "'",
        "multiline": False,
        "pragma": "header",
        **kw,
    }
    return Case(params=params, modes=modes, **fields)


X = Param("x", REGULAR, 0, False, False, "")
N = Param("n", REGULAR, 1, False, True, MARKERS[0])
M = Param("m", REGULAR, 2, True, False, "")
K = Param("k", KWONLY, None, False, True, MARKERS[0])
#: The README's wrapper without functools.wraps, ``n`` passed by keyword.


def _arguments(
    case: Case, call: int, changed: str | None
) -> tuple[list[Any], dict[str, Any], dict[str, object]]:
    """Positional and keyword arguments for one call, and what the body should see."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    seen: dict[str, object] = {}
    for i, p in enumerate(case.params):
        mode = case.modes[p.name]
        if mode == "omit":
            seen[p.name] = ("V", _default(case, p))
            continue
        if case.ideal_static(p):
            value: object = i + 1 + (1 if p.name == changed else 0)
        else:
            value = 0.5 + i + (100.0 if call == 2 else 0.0)
        (args.append(value) if mode == "pos" else kwargs.__setitem__(p.name, value))
        seen[p.name] = ("V", value) if case.static_in_calls(p) else "T"
    extras = [1.25 + j + (10.0 if call == 2 else 0.0) for j in range(case.extra_args)]
    args += extras
    names = case.effective_lists()[1]
    extra_kw = {
        f"extra{j}": 2.5 + j + (10.0 if call == 2 and f"extra{j}" not in names else 0.0)
        for j in range(case.extra_kwargs)
    }
    kwargs.update(extra_kw)
    if case.varargs or case.varkw:
        seen["*"] = ["T"] * len(extras)
        seen["**"] = {k: ("V", v) if k in names else "T" for k, v in extra_kw.items()}
    return args, kwargs, seen


def _expected_value(case: Case, args: list[Any], kwargs: dict[str, Any]) -> float:
    total = 0.0
    for p in case.params:
        if case.modes[p.name] == "omit":
            total += _default(case, p)  # type: ignore[operator]
    return float(total + sum(args) + sum(kwargs.values()))


def _exercise(case: Case, f: Any, traces: list[Any], out: str) -> None:
    """Call ``f`` (a transform of a def rendered by ``_body``) as the model says and check each
    parameter is static or traced as expected: new dynamic values never retrace, a changed
    static does. ``f`` must not have been traced before (a fresh def, or caches cleared)."""
    base = len(traces)

    def call(number: int, changed: str | None = None) -> None:
        args, kwargs, seen = _arguments(case, number, changed)
        count = len(traces)
        try:
            result = f(*args, **kwargs)
        except Exception as err:  # say what the body saw before it failed
            raise AssertionError(
                f"{type(err).__name__}: {err}\nsaw {traces[count:]}\n{out}"
            ) from err
        if len(traces) > count:  # traced: each parameter static or traced as the model says
            assert traces[-1] == seen, f"saw {traces[-1]}\nexpected {seen}\n{out}"
        assert math.isclose(float(result), _expected_value(case, args, kwargs), rel_tol=1e-5), (
            result,
            args,
            kwargs,
        )

    call(1)
    assert len(traces) == base + 1
    call(2)  # same statics, new dynamic values
    assert len(traces) == base + 1, f"retraced with the same statics: {traces[base:]}\n{out}"
    passed_statics = [
        p.name for p in case.params if case.modes[p.name] != "omit" and case.static_in_calls(p)
    ]
    if passed_statics:
        call(1, changed=passed_statics[case.change % len(passed_statics)])
        assert len(traces) == base + 2, f"a changed static did not retrace: {traces[base:]}\n{out}"
    call(1)  # the first call again: cached
    assert len(traces) == base + (2 if passed_statics else 1), traces[base:]

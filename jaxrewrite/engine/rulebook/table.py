"""What each JAX transform accepts: one row per transform, read by every other part of the engine.

A row is found by qualified name: a family prefix (``jax``) and the transform's own name as the
last segment (``jax.jit``, ``jax._src.api.jit``, ``jax.experimental.pjit.pjit``). A new transform
is a new row here and a new family a new entry in ``FAMILIES``, never a new branch elsewhere.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Mark(enum.Enum):
    """What a parameter annotation can say; the public spellings are ``Static`` and ``NoDiff``."""

    STATIC = "Static"
    NODIFF = "NoDiff"


#: ``Static[T]``/``NoDiff[T]`` (and their bare forms) by exported name.
MARKER_TYPES: dict[str, Mark] = {mark.value: mark for mark in Mark}
#: ``Annotated[T, STATIC]`` metadata constants by exported name.
MARKER_CONSTANTS: dict[str, Mark] = {mark.name: mark for mark in Mark}
#: Every name jaxrewrite exports that can spell a marker.
MARKER_EXPORTS: frozenset[str] = frozenset(MARKER_TYPES) | frozenset(MARKER_CONSTANTS)
#: The markers by name without the run-time check (``jaxrewrite.markers.UNCHECKED["Static"]``).
MARKER_TABLE = "jaxrewrite.markers.UNCHECKED"


class SpecKind(enum.Enum):
    """How a transform is told which arguments are static."""

    #: Positions (and names, where the row has an ``argnames`` keyword) as lists.
    LISTS = "lists"
    #: A per-argument axes tuple with ``None`` at static positions (vmap's ``in_axes``).
    AXES = "axes"
    #: Nothing to write: the keyword lists the differentiated positions (grad's ``argnums``),
    #: which must leave every marked parameter out.
    DIFF = "diff"


@dataclass(frozen=True)
class Transform:
    """The static-argument keywords one JAX transform takes, and how it treats its arguments."""

    name: str
    #: Receives static positions (or, for ``SpecKind.AXES``, the axes).
    argnums: str
    #: Receives static names; None: the transform takes positions only.
    argnames: str | None = None
    #: Donation keywords: a Static argument must not be donated.
    donate_argnums: str | None = None
    donate_argnames: str | None = None
    #: The functions of ``engine.walk.specs`` that complete and read its spec.
    spec: SpecKind = SpecKind.LISTS
    #: The keywords the parameters after the function bind by position, in order.
    positional: tuple[str, ...] = ()
    #: The helper of ``jaxrewrite/leaves.py`` that splits per-leaf entries; None: refused.
    per_leaf: str | None = None
    #: Why a keyword-only marked parameter cannot be static, for a row without ``argnames``
    #: (JR110; each reason checked on the installed JAX by tests/engine/test_rows.py).
    positions_only: str = "it takes static arguments by position only"
    #: False: the static values reach the user's rules (custom_vjp's nondiff_argnums), so an
    #: array there escapes a surrounding jit as a tracer: an array-typed marker is refused.
    arrays_at_static: bool = True
    #: Leading positional parameters it binds itself, outside its axes (``nn.vmap``'s Module).
    leading_unmapped: int = 0
    #: How many trailing positional parameters cannot be static by position, and why.
    tail_not_static: tuple[int, str] | None = None
    #: The result takes the function's own arguments; False: it returns something else (a jaxpr).
    keeps_arguments: bool = True
    #: A spec keyword JAX reads that the row does not write, and how ``migrate`` reads it:
    #: ``positions`` (names JAX turns into positions) or ``refuse`` (honoured only sometimes).
    read_also: tuple[str, str] | None = None
    #: The spec may be passed by position, and is migrated so (jit's is keyword-only).
    spec_by_position: bool = False
    #: JAX hashes the static values into a cache key, so an unhashable type fails at call time
    #: (JR003); False where the installed and the floor JAX took a list and a dict there.
    hashes_statics: bool = True
    #: Maps keyword arguments over axis 0 whatever ``in_axes`` says (JR011).
    maps_keywords: bool = False
    #: A keyword that, written, makes JAX refuse every keyword argument at call time (JR010).
    refuses_kwargs_with: str | None = None

    @property
    def differentiates(self) -> bool:
        """grad's kin and custom_vjp/custom_jvp (their ``nondiff_argnums``)."""
        return self.spec is SpecKind.DIFF or self.argnums == "nondiff_argnums"

    @property
    def markers(self) -> frozenset[Mark]:
        """The markers that make a parameter static for it: NoDiff too where it differentiates."""
        return _STATIC_OR_NODIFF if self.differentiates else _STATIC

    @property
    def abstract(self) -> bool:
        """Traces every non-static argument to an abstract value (JR006): grad's kin trace with
        the concrete values inside, and custom_vjp/custom_jvp call the function on them."""
        return not self.differentiates


_STATIC = frozenset({Mark.STATIC})
_STATIC_OR_NODIFF = frozenset({Mark.STATIC, Mark.NODIFF})
#: What jit took by position in the floor JAX, and pjit still takes (pjit's next parameter differs
#: between versions: it is the installed JAX's name, which nothing reads).
_JIT_POSITIONAL = (
    "in_shardings",
    "out_shardings",
    "static_argnums",
    "static_argnames",
    "donate_argnums",
    "donate_argnames",
    "keep_unused",
    "device",
    "backend",
    "inline",
)
_PJIT_POSITIONAL = (*_JIT_POSITIONAL, "compiler_options")


def _jit(name: str, positional: tuple[str, ...]) -> Transform:
    return Transform(
        name,
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        "donate_argnames",
        positional=positional,
        per_leaf="static_leaves",
        refuses_kwargs_with="in_shardings",
    )


def _grad(
    name: str,
    positional: tuple[str, ...] = ("argnums", "has_aux", "holomorphic", "allow_int", "reduce_axes"),
) -> Transform:
    """grad and its kin (jacfwd, jacrev, hessian): ``argnums`` lists what is differentiated."""
    return Transform(
        name,
        "argnums",
        spec=SpecKind.DIFF,
        positional=positional,
        per_leaf="grad_leaves",
        hashes_statics=False,
    )


#: custom_vjp and custom_jvp resolve every argument to a position before they call the rule,
#: nondiff_argnames included: jax 0.10.2 raises "could not be resolved to positional-only arguments"
#: for a keyword-only parameter named there.
_CUSTOM_POSITIONS_ONLY = (
    "it binds every argument to a position (its nondiff_argnames too), so a keyword-only parameter "
    "cannot be non-differentiable"
)
#: jax.checkpoint lists static_argnames, but a name listed there is still traced unless the
#: jax_remat3 flag is on (jax 0.10.2): positions are what works.
_CHECKPOINT_POSITIONS_ONLY = (
    "it honours static arguments by position only (its static_argnames leaves a keyword-only "
    "parameter traced unless jax_remat3 is on)"
)


def _checkpoint(name: str) -> Transform:
    return Transform(
        name,
        "static_argnums",
        positions_only=_CHECKPOINT_POSITIONS_ONLY,
        read_also=("static_argnames", "refuse"),
        hashes_statics=False,
    )


def _custom(name: str) -> Transform:
    return Transform(
        name,
        "nondiff_argnums",
        positional=("nondiff_argnums", "nondiff_argnames"),
        positions_only=_CUSTOM_POSITIONS_ONLY,
        arrays_at_static=False,
        read_also=("nondiff_argnames", "positions"),
        spec_by_position=True,
        hashes_statics=False,
    )


#: JAX's own transforms (``jax.<anything>.<name>``).
TRANSFORMS: dict[str, Transform] = {
    "jit": _jit("jit", _JIT_POSITIONAL),
    "pjit": _jit("pjit", _PJIT_POSITIONAL),
    "pmap": Transform(
        "pmap",
        "static_broadcasted_argnums",
        donate_argnums="donate_argnums",
        positional=("axis_name",),
        per_leaf="pmap_leaves",
    ),
    "custom_vjp": _custom("custom_vjp"),
    "custom_jvp": _custom("custom_jvp"),
    "checkpoint": _checkpoint("checkpoint"),
    "remat": _checkpoint("remat"),
    # jax.make_jaxpr(fun, static_argnums, axis_env, return_shape[, abstracted_axes]): positions
    # only; a Static parameter passed by keyword is traced, as under vmap.
    "make_jaxpr": Transform(
        "make_jaxpr",
        "static_argnums",
        positional=("static_argnums", "axis_env", "return_shape", "abstracted_axes"),
        positions_only="it takes static arguments by position only (static_argnums)",
        keeps_arguments=False,
    ),
    "vmap": Transform(
        "vmap",
        "in_axes",
        spec=SpecKind.AXES,
        positional=("in_axes", "out_axes", "axis_name", "axis_size", "spmd_axis_name", "sum_match"),
        per_leaf="vmap_leaves",
        hashes_statics=False,
        maps_keywords=True,
    ),
    "grad": _grad("grad"),
    "value_and_grad": _grad("value_and_grad"),
    "jacfwd": _grad("jacfwd", ("argnums", "has_aux", "holomorphic")),
    "jacrev": _grad("jacrev", ("argnums", "has_aux", "holomorphic", "allow_int")),
    "jacobian": _grad("jacobian", ("argnums", "has_aux", "holomorphic", "allow_int")),
    "hessian": _grad("hessian", ("argnums", "has_aux", "holomorphic")),
}

#: Flax NNX's lifted transforms (``flax.nnx.<anything>.<name>``): from flax 0.10.1 to 0.12.8 every
#: parameter after the function is keyword-only and means what JAX's does, the user's positions
#: (``self`` included) reaching jax.jit and friends (tests/engine/test_nnx.py checks both).
NNX_TRANSFORMS: dict[str, Transform] = {
    "jit": Transform(
        "nnx.jit", "static_argnums", "static_argnames", "donate_argnums", "donate_argnames"
    ),
    # positions only
    "remat": Transform("nnx.remat", "static_argnums", hashes_statics=False),
    "vmap": Transform("nnx.vmap", "in_axes", spec=SpecKind.AXES, hashes_statics=False),
    "pmap": Transform("nnx.pmap", "static_broadcasted_argnums", donate_argnums="donate_argnums"),
    # nondiff_argnums: ints (what is written here) or DiffState objects, which are not literals,
    # so Static/NoDiff next to them is refused (JR111)
    "custom_vjp": Transform(
        "nnx.custom_vjp", "nondiff_argnums", arrays_at_static=False, hashes_statics=False
    ),
    # ``argnums`` lists what is differentiated (ints or DiffState objects)
    "grad": Transform("nnx.grad", "argnums", spec=SpecKind.DIFF, hashes_statics=False),
    "value_and_grad": Transform(
        "nnx.value_and_grad", "argnums", spec=SpecKind.DIFF, hashes_statics=False
    ),
    # flax 0.11 and newer
    "make_jaxpr": Transform("nnx.make_jaxpr", "static_argnums", keeps_arguments=False),
}

_LINEN_JIT_TAIL = (
    "Linen's nn.jit shifts static_argnums by two and JAX checks them against the method's own "
    "signature, so the last two positional parameters cannot be static by position"
)


def _linen_checkpoint(name: str) -> Transform:
    return Transform(
        name,
        "static_argnums",
        positional=(
            "variables",
            "rngs",
            "concrete",
            "prevent_cse",
            "static_argnums",
            "policy",
            "methods",
        ),
        positions_only=_CHECKPOINT_POSITIONS_ONLY,
    )


#: Flax Linen's lifted transforms (``flax.linen.<anything>.<name>``), on methods and on functions
#: taking the Module first: ``static_argnums`` counts it, ``nn.vmap``'s ``in_axes`` leaves it out
#: (tests/engine/test_linen.py checks the rows against the installed flax).
LINEN_TRANSFORMS: dict[str, Transform] = {
    "jit": Transform(
        "nn.jit",
        "static_argnums",
        "static_argnames",
        "donate_argnums",
        positional=(
            "variables",
            "rngs",
            "static_argnums",
            "static_argnames",
            "donate_argnums",
            "device",
            "backend",
            "methods",
        ),
        tail_not_static=(2, _LINEN_JIT_TAIL),
    ),
    # remat is the same function as checkpoint
    "checkpoint": _linen_checkpoint("nn.checkpoint"),
    "remat": _linen_checkpoint("nn.remat"),
    "vmap": Transform(
        "nn.vmap",
        "in_axes",
        spec=SpecKind.AXES,
        positional=(
            "variable_axes",
            "split_rngs",
            "in_axes",
            "out_axes",
            "axis_size",
            "axis_name",
            "spmd_axis_name",
            "metadata_params",
            "methods",
        ),
        leading_unmapped=1,
        maps_keywords=True,
    ),
}

#: Qualified-name prefix -> the rows under it, found by a name's last segment.
FAMILIES: dict[str, dict[str, Transform]] = {
    "jax": TRANSFORMS,
    "flax.nnx": NNX_TRANSFORMS,
    "flax.linen": LINEN_TRANSFORMS,
}


def transform_for(qualname: str) -> Transform | None:
    """The row for ``<family prefix>.<anything>.<row name>``, if it is in the table."""
    last = qualname.rpartition(".")[2]
    for prefix, rows in FAMILIES.items():
        if qualname.startswith(prefix + "."):
            return rows.get(last)
    return None


#: JAX's differentiating transforms, by qualified name.
_GRADS = frozenset(f"jax.{n}" for n in ("grad", "value_and_grad", "jacfwd", "jacrev", "hessian"))
#: Transforms that trace the function with abstract arguments of their own (their rows of the
#: table report its parameters, as uses of their own): only what it closes over is followed
#: (``engine.findings.traced_body``, JR006). Equinox's filtered ones take no spec but trace so.
INNER_OWN_TRACE: frozenset[str] = frozenset(
    {"jax.jit", "jax.vmap", "jax.pmap", "jax.checkpoint", "jax.remat"}
    | {"equinox.filter_jit", "equinox.filter_vmap"}
)
#: Transforms whose result, called, runs the function at once with the call's own arguments
#: (grad's tracers of a concrete value stay concrete): an inner function's parameters take the
#: states of what the call passes (``engine.findings.traced_body``, JR006).
INNER_PASS_THROUGH: frozenset[str] = _GRADS | {
    "equinox.filter_grad",
    "equinox.filter_value_and_grad",
}
#: Transforms whose result, called inside a trace, traces again even from concrete inputs
#: (``engine.findings.flow``, JR006).
TRACED_AGAIN: frozenset[str] = INNER_OWN_TRACE | _GRADS | {"equinox.filter_grad"}
#: Transforms a use may sit inside whose result a call passes its arguments through to the
#: function (``jax.jit(jax.jacrev(f))(x)``: ``engine.findings.call_arguments``, JR006).
PASSES_THROUGH: frozenset[str] = _GRADS | {"jax.jit"}
#: Decorators that call the def with the very arguments they are given (JR006 reads through them
#: to the def's own signature: non-array arguments are static for Equinox's filtered jit).
SIGNATURE_KEEPING: frozenset[str] = frozenset({"equinox.filter_jit"})
#: lax's control flow, with the positions of the functions it traces at once (``cond`` both
#: branches, ``fori_loop`` even for no trip: checked against the installed JAX, tests/test_flow.py).
LAX_BODIES: dict[str, tuple[int, ...]] = {
    "jax.lax.fori_loop": (2,),
    "jax.lax.scan": (0,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2),
    "jax.lax.map": (0,),
}


#: Substrings (any case) of the last name of a transform jaxrewrite does not know
#: (``equinox.filter_jit``, ``numba.jit``, ``my_jit``: JR004).
TRANSFORM_LIKE: tuple[str, ...] = (
    "jit",
    "pmap",
    "vmap",
    "remat",
    "checkpoint",
    "grad",
    "custom_vjp",
    "custom_jvp",
    "shard_map",
)
#: Names that say "transform" as a decorator only (``@nnx.scan`` lifts a def over a loop); a
#: callee ``scan`` is ``jax.lax.scan``, which ``TRACES`` covers (JR012).
DECORATOR_LIKE: tuple[str, ...] = ("scan",)


@dataclass(frozen=True)
class Traces:
    """How a JAX function calls the function it is given: at position ``function`` of the call
    (or by the keyword ``name``), with ``passes`` arguments (None: every parameter;
    ``rest_from``: the call's own positional and keyword arguments from that index on, as
    ``jax.eval_shape(f, *args, **kwargs)`` does; ``packed``: the items of the tuple at that
    position or keyword, as ``jax.jvp(f, primals, tangents)`` does). ``branches``: the argument
    is a sequence of functions, each called so (``jax.lax.switch``)."""

    function: int
    name: str
    passes: int | None = None
    rest_from: int | None = None
    packed: tuple[int, str] | None = None
    branches: bool = False


_ARGS = (Traces(0, "fun", rest_from=1),)
_JVP = (Traces(0, "fun", packed=(1, "primals")),)
_COND = (Traces(1, "true_fun", rest_from=3), Traces(2, "false_fun", rest_from=3))
_SWITCH = (Traces(1, "branches", rest_from=2, branches=True),)
_WHILE = (Traces(0, "cond_fun", passes=1), Traces(1, "body_fun", passes=1))
_FORI = (Traces(2, "body_fun", passes=2),)

#: JAX functions that trace the arguments they call a function with and take no static spec
#: from jaxrewrite (JR012), by qualified name; each row proven on the installed jax and flax by
#: tests/rules/test_traces_table.py.
TRACES: dict[str, tuple[Traces, ...]] = {
    "jax.eval_shape": _ARGS,
    "jax.linearize": _ARGS,
    "jax.vjp": _ARGS,
    "jax.jvp": _JVP,
    "jax.linear_transpose": _ARGS,
    "jax.closure_convert": _ARGS,
    "jax.lax.scan": (Traces(0, "f", passes=2),),
    "jax.lax.map": (Traces(0, "f", passes=1),),
    "jax.lax.fori_loop": _FORI,
    "jax.lax.while_loop": _WHILE,
    "jax.lax.cond": _COND,
    "jax.lax.switch": _SWITCH,
    "jax.lax.associative_scan": (Traces(0, "fn", passes=2),),
    "jax.lax.reduce": (Traces(2, "computation", passes=2),),
    "jax.experimental.custom_partitioning.custom_partitioning": (Traces(0, "fun"),),
    "jax.custom_batching.custom_vmap": (Traces(0, "fun"),),
    # Flax NNX's own versions, which take the same arguments (and NNX objects among them)
    "flax.nnx.eval_shape": (Traces(0, "f", rest_from=1),),
    "flax.nnx.vjp": (Traces(0, "f", rest_from=1),),
    "flax.nnx.jvp": (Traces(0, "f", packed=(1, "primals")),),
    "flax.nnx.fori_loop": _FORI,
    "flax.nnx.while_loop": _WHILE,
    "flax.nnx.cond": _COND,
    "flax.nnx.switch": _SWITCH,
}


#: Types whose values are arrays, by qualified name: every transform traces them, JAX cannot
#: hash them (JR003), custom_vjp's rules get them as tracers (``arrays_at_static``).
ARRAY_TYPES: frozenset[str] = frozenset(
    {
        "jax.Array",
        "jax.numpy.ndarray",
        "jax.typing.ArrayLike",
        "jaxlib.xla_extension.ArrayImpl",
        "numpy.ndarray",
        "numpy.typing.NDArray",
        "jaxtyping.Array",
        "jaxtyping.ArrayLike",
    }
)
#: The package whose annotations are arrays (``Float[Array, "n"]``) or trees of them.
ARRAY_PACKAGE = "jaxtyping"
#: jaxtyping's dtype annotations (``Float[Array, "n"]``): arrays whatever they subscript.
ARRAY_DTYPES: frozenset[str] = frozenset(
    "Shaped Bool Key Num Inexact Float Float16 Float32 Float64 BFloat16 Complex Complex64 "
    "Complex128 Integer Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Real".split()
)


@dataclass(frozen=True)
class ClassTransform:
    """A JAX function that registers a class as a pytree, splitting fields into data and meta:
    its keywords, and those the parameters after the class bind by position."""

    name: str
    data_fields: str = "data_fields"
    meta_fields: str = "meta_fields"
    drop_fields: str = "drop_fields"
    positional: tuple[str, ...] = ("data_fields", "meta_fields", "drop_fields")


CLASS_TRANSFORMS = {"register_dataclass": ClassTransform("register_dataclass")}


#: JAX's registrations by the user's own flatten function (``jax.<anything>.<name>``), whose aux
#: data jaxrewrite cannot read (JR020), and how each is used: as a decorator, or called.
OPAQUE_REGISTRATIONS: dict[str, str] = {
    "register_pytree_node_class": "decorator",
    "register_pytree_with_keys_class": "decorator",
    "register_pytree_node": "call",
    "register_pytree_with_keys": "call",
}


def opaque_registration(qualname: str | None) -> str | None:
    """``register_pytree_node_class`` and its kin, by qualified name: JAX's registrations whose
    aux data the user's own flatten writes."""
    last = (qualname or "").rpartition(".")[2]
    return last if (qualname or "").startswith("jax.") and last in OPAQUE_REGISTRATIONS else None


def class_transform_for(qualname: str) -> ClassTransform | None:
    """The class-registering function a qualified name refers to, if it is in the table."""
    return (
        CLASS_TRANSFORMS.get(qualname.rpartition(".")[2]) if qualname.startswith("jax.") else None
    )


@dataclass(frozen=True)
class FieldForm:
    """A library whose classes mark static fields with their own field function.

    ``Static[T]`` on a field of such a class is completed to ``<field>(<keyword>=<static>)``
    (the library's own spelling); the same key in a ``dataclasses.field(metadata=...)`` means the
    same to it, as the library's field function only writes that metadata entry.
    """

    #: For messages: what the user knows the library as.
    library: str
    #: Base classes whose subclasses (and theirs) are the library's dataclasses.
    bases: frozenset[str]
    #: Class decorators that make a class one (not inherited: a subclass needs its own).
    decorators: frozenset[str]
    #: The library's field function.
    field: str
    #: The keyword (and, where it can be passed by position, its index) that says "static".
    keyword: str
    position: int | None
    #: The keyword's value for a static field; the metadata entry the library reads is the same.
    static: bool
    #: What NoDiff on a field would have to mean, and why the library cannot say it.
    nodiff: str

    @property
    def module(self) -> str:
        """Where the rewritten code imports the field function from."""
        return self.field.rpartition(".")[0]


#: Field-form libraries, checked against the installed equinox and flax by tests/test_fields.py.
FIELD_FORMS: tuple[FieldForm, ...] = (
    # equinox.field(*, converter=None, static=False, **dataclass_field_kwargs): metadata["static"]
    FieldForm(
        "Equinox",
        frozenset({"equinox.Module"}),
        frozenset(),
        "equinox.field",
        "static",
        None,
        True,
        "Equinox has no per-field 'do not differentiate': eqx.filter_grad differentiates every "
        "floating-point array leaf of a Module",
    ),
    # flax.struct.field(pytree_node=True, *, metadata=None, **kwargs): metadata["pytree_node"]
    FieldForm(
        "flax.struct",
        frozenset({"flax.struct.PyTreeNode"}),
        frozenset({"flax.struct.dataclass"}),
        "flax.struct.field",
        "pytree_node",
        0,
        False,
        "flax.struct has no per-field 'do not differentiate': jax.grad differentiates every "
        "pytree_node field",
    ),
)

#: The form of a class whose base is defined in another module (this module cannot tell which
#: library it belongs to): ``jaxrewrite.field(static=True)`` (jaxrewrite/markers.py) writes
#: both libraries' metadata keys, and on a class that is no dataclass puts the plain value back.
EITHER_FORM = FieldForm(
    "Equinox or flax.struct",
    frozenset(),
    frozenset(),
    "jaxrewrite.field",
    "static",
    None,
    True,
    "neither Equinox nor flax.struct has a per-field 'do not differentiate': their grads "
    "differentiate every array leaf",
)


#: Names a star import of a module may supply that the engine cares about, by top-level package.
STAR_EXPORTS: dict[str, frozenset[str]] = {
    "jax": frozenset(TRANSFORMS),
    "flax": frozenset(NNX_TRANSFORMS) | frozenset(LINEN_TRANSFORMS),  # from flax.nnx import *
    "functools": frozenset({"partial"}),
    "typing": frozenset({"Annotated"}),
    "typing_extensions": frozenset({"Annotated"}),
    "jaxrewrite": MARKER_EXPORTS,
}


class Container(enum.Enum):
    """What a class is, for per-leaf statics: which container its instances are."""

    DICT = "dict"  # TypedDict: instances are plain dicts
    NAMEDTUPLE = "namedtuple"
    CLASS = "class"  # anything else


#: Bases (and functional forms) that make a class a container, by qualified name.
CONTAINERS: dict[str, Container] = {
    "typing.TypedDict": Container.DICT,
    "typing.NamedTuple": Container.NAMEDTUPLE,
}


#: Qualified names that mean the same thing, mapped to one spelling (a ``try``/``except
#: ImportError`` between typing and typing_extensions binds one meaning, not two).
_TYPING = ("Annotated", "Optional", "Union", "TypedDict", "NamedTuple", "ClassVar", "Protocol")
SAME_AS: dict[str, str] = {
    **{
        f"typing_extensions.{n}": f"typing.{n}"
        for n in (*_TYPING, "Generic", "overload", "Callable")
    },
    "collections.abc.Callable": "typing.Callable",
    **{f"jaxrewrite.markers.{name}": f"jaxrewrite.{name}" for name in MARKER_EXPORTS},
}


def canonical(qualname: str) -> str:
    return SAME_AS.get(qualname, qualname)

"""The records of the codes raised below the findings (ruff's rule record), each code once: a raise
site names its rule and fills the template (``rules.NOT_LITERAL.error(src, node, ...)``). A merged
code is never reused: ``RETIRED`` maps it to its successor. Imports nothing of the package."""

from __future__ import annotations

import enum
import os
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ast

    from jaxrewrite.engine.read.source import Source
    from jaxrewrite.errors import RewriteError


class Severity(enum.Enum):
    """What a finding of the rule does: the import raises an ERROR (a RewriteError), warns of a
    WARNING (``check`` reports it), and a REFUSAL is a function ``migrate`` leaves as written."""

    ERROR = "error"
    WARNING = "warning"
    REFUSAL = "refusal"


#: The base URL of the built docs site, or None while none is published; the environment
#: variable JAXREWRITE_DOCS_URL overrides it (a team's own build of the site).
DOCS_URL: str | None = None


def docs_base() -> str | None:
    """The docs site's base URL in force (JAXREWRITE_DOCS_URL, else ``DOCS_URL``), if any."""
    return os.environ.get("JAXREWRITE_DOCS_URL") or DOCS_URL


def docs_link(anchor: str) -> str:
    """Where a section is read: its page of the docs site, or the Markdown file without one."""
    base = docs_base()
    if base:
        return f"{base.rstrip('/')}/{PAGES[anchor]}.html#{anchor}"
    return f"docs/{PAGES[anchor]}.md#{anchor}"


#: A link in a message template: ``{see[ANCHOR]}``, filled with ``docs_link(ANCHOR)``.
_SEE = re.compile(r"\{see\[([\w-]+)\]\}")


def _placeholders(template: str) -> str:
    """A message template as a reader sees it: links filled, ``{name!r}`` shown as ``<name>``."""
    linked = _SEE.sub(lambda m: docs_link(m.group(1)), template)
    return re.sub(r"\{(\w+)(?:![rsa])?\}", r"<\1>", linked)


class Rule:
    """One code: ``message`` (and each of ``variants``, other wordings of the same finding, given
    as keywords) is a ``str.format`` template filled at the raise site; ``fix`` says what to write
    instead; ``anchor`` is the heading of the guide that explains it (by default the table of codes
    of its severity); ``details`` is what the docs' table of codes says after the summary; a
    warning ``at_import`` is said by the import hook too, not by ``check`` alone."""

    def __init__(
        self,
        code: str,
        summary: str,
        message: str,
        fix: str,
        anchor: str = "",
        details: str = "",
        at_import: bool = False,
        **variants: str,
    ) -> None:
        self.code, self.summary, self.message, self.fix = code, summary, message, fix
        self.anchor = anchor or _TABLES[self.severity]
        self.details, self.at_import, self.variants = details, at_import, variants

    @property
    def severity(self) -> Severity:
        """The code's hundred says it: JR0nn warnings, JR1nn errors, JR2nn refusals."""
        return _SEVERITIES[self.code[2]]

    def text(self, variant: str = "", /, **fields: Any) -> str:
        """The message, ``variant``'s wording (default: ``message``) filled with ``fields``."""
        template = self.variants[variant] if variant else self.message
        return template.format(**fields, see={anchor: docs_link(anchor) for anchor in PAGES})

    def error(
        self, src: Source, node: ast.AST, variant: str = "", /, **fields: Any
    ) -> RewriteError:
        """The located RewriteError for ``node`` of ``src``."""
        return src.error(node, self.code, self.text(variant, **fields))

    def explain(self) -> str:
        """The record as ``check --explain`` prints it: in full, every wording of the message
        included, so that no link is needed offline; the link last (``docs_link``)."""
        wordings = [self.message, *self.variants.values()]
        said = "".join(f"message: {_placeholders(text)}\n" for text in wordings)
        return (
            f"{self.code} ({self.severity.value}): {self.summary}{self.details}\n{said}"
            f"fix: {self.fix}\nsee: {docs_link(self.anchor)}\n"
        )


_SEVERITIES = {"0": Severity.WARNING, "1": Severity.ERROR, "2": Severity.REFUSAL}
#: The guide's sections the records name: the three tables of codes, and those that say more.
ERRORS, CHECK, MIGRATE = (
    "9-errors",
    "jaxrewrite-check",
    "12-migrating-existing-code-jaxrewrite-migrate",
)
LEAVES, FIELDS, LIMITS = (
    "8-static-parts-of-one-argument-dataclasses-typeddicts-namedtuples",
    "equinox-modules",
    "11-limits",
)
_TABLES = {Severity.WARNING: CHECK, Severity.ERROR: ERRORS, Severity.REFUSAL: MIGRATE}
#: The guide's page of each section a rule names (docs/NAME.md; NAME.html on the site).
PAGES = {
    ERRORS: "errors",
    CHECK: "check",
    MIGRATE: "migrate",
    LEAVES: "leaves",
    FIELDS: "leaves",
    LIMITS: "transforms",
    "5-what-counts-as-static": "static",
    "6-which-transforms-which-spellings": "transforms",
    "arguments-that-must-be-static-jr006": "check",
    "never-silent-every-marker-applied-refused-or-reported": "check",
    "flax-linen": "libraries",
    "wrappers-without-functoolswraps": "transforms",
}
#: Past the depth the readers follow (resolve.PAST_DEPTH fills ``{past}``).
_DEEP = (
    "cannot tell whether {expr!r} is a JAX transform: {past}; name the transform directly (or "
    "through a shorter alias) so the Static parameters are not ignored"
)
_LEAVES = "per-leaf statics ({param!r} has Static entries) "
_UNSPELLED = "cannot tell whether Static field {name!r} is "

# -- JR005: the one warning the analysis says itself, from the header before any tree (the other
# JR0nn are the rules of engine/findings/checks/, one module each) ---------------------------------

UNKNOWN_DIRECTIVE = Rule(
    "JR005",
    "an unknown '# jaxrewrite:' directive in the header",
    "unknown jaxrewrite directive '# jaxrewrite: {word}' (only 'enable' exists)",
    "write '# jaxrewrite: enable', the one directive",
    at_import=True,
)

# -- JR1nn: errors (the import refuses the module) ----------------------------------------------

SYNTAX = Rule(
    "JR100",
    "the source does not parse",
    "{message}",
    "fix the syntax error Python reports",
    details=" (Python's own SyntaxError)",
)
MARKED_VARARGS = Rule(
    "JR101",
    "a marker on '*args' or '**kwargs'",
    (
        "{spelled} cannot mark {kind} parameter {name!r}: JAX can only treat named or positional "
        "parameters as static; {instead}"
    ),
    "one parameter holding the values, or a keyword-only parameter per keyword",
)
NESTED_MARKER = Rule(
    "JR102",
    "a marker nested inside another annotation",
    (
        "a marker must be the outermost annotation, but {nested} is nested inside {where}; put "
        "the marker outside, e.g. Static[Optional[int]] rather than Optional[Static[int]]"
    ),
    "put the marker outside: Static[Optional[int]]",
    details=" (`Optional[Static[int]]`)",
)
TYPE_ALIAS = Rule(
    "JR103",
    "a marker hidden behind a 'type' statement alias",
    (
        "{alias} is a 'type' statement alias, which hides its Annotated metadata; write '{alias} "
        "= ...' instead"
    ),
    "write the alias as an assignment, 'Alias = ...'",
)
TRANSFORM_BOUND_TWICE = Rule(
    "JR104",
    (
        "a transform's or a marker's name bound more than one way, and the bindings disagree on "
        "what is static"
    ),
    (
        "cannot tell whether {expr!r} is a JAX transform, or which: {name!r} is bound more than "
        "once, to {first} ({first_at}) and to {second} ({second_at}), which do not make the same "
        "parameters static; bind it to transforms with the same static arguments on every path, "
        "or once"
    ),
    "bind the name the same way on every path (or once)",
    marker=(
        "cannot tell whether {name!r} marks this parameter: it is bound more than once, to "
        "{first} ({first_at}) and to {second} ({second_at}), which do not mark it the same "
        "way; bind it to the same marker on every path, or once"
    ),
    details=(
        " (`jit` from jax in one branch, `print` in another; `S = Static[int]` in one, `S"
        " = int` in another; the message names both bindings, file and line; JR119 is the"
        " function passed to a transform)"
    ),
)
FACTORY_KEYWORDS = Rule(
    "JR105",
    "keywords needed on a decorator factory's result",
    (
        "cannot add {name} keywords to {expr!r}: it is the result of a decorator factory, which "
        "takes only the function; define it with functools.partial({name}, ...) instead"
    ),
    "define it with functools.partial(transform, ...)",
    details=" (`fast = jax.jit(inline=True)`)",
)
LEAVES_UNSPLIT = Rule(
    "JR106",
    "per-leaf statics under a transform that cannot split them",
    _LEAVES
    + (
        "work under {names} only, not {transform}; mark {param!r} Static whole, or pass its "
        "static entries as parameters of their own"
    ),
    "mark the parameter Static whole, or pass its static entries as parameters of their own",
    LEAVES,
)
LEAVES_FACTORY = Rule(
    "JR107",
    "per-leaf statics at a call site whose transform is a decorator factory's result",
    _LEAVES
    + "cannot be split by {factory!r}, a decorator factory's result; use functools.partial instead",
    "use functools.partial of the transform instead of a factory",
    LEAVES,
)
LEAVES_VARARGS = Rule(
    "JR108",
    "per-leaf statics on '*args' or '**kwargs'",
    (
        "per-leaf statics cannot apply to {kind} parameter {name!r}; give the container a named "
        "parameter of its own"
    ),
    "give the container a named parameter of its own",
    LEAVES,
)
UNPACKED = Rule(
    "JR109",
    "transform arguments passed as '**mapping' or '*sequence'",
    (
        "cannot merge Static {what} into {transform} keywords passed as **{mapping}; write the "
        "keywords out by name"
    ),
    "write the keywords (or arguments) out by name",
    migrate=(
        "{transform} arguments passed as **{mapping} may hold a spec; write the keywords out "
        "by name"
    ),
    migrate_use=(
        "{where} passes **{mapping}, which may hold a spec; write the keywords out by name"
    ),
    check=(
        "cannot check Static/NoDiff parameters against {transform} keywords passed as "
        "**mapping; write the keywords out by name"
    ),
    starred=(
        "cannot merge Static parameters into {transform} arguments passed as *{sequence}; "
        "write the arguments out one by one"
    ),
)
KEYWORD_ONLY_POSITIONS = Rule(
    "JR110",
    "a keyword-only Static parameter under a transform that takes positions only",
    (
        "{name!r} is keyword-only, but {transform} cannot take it as static: {why}; make it a "
        "positional parameter"
    ),
    "make it a positional parameter",
)
NOT_LITERAL = Rule(
    "JR111",
    "a static spec that is not a literal",
    (
        "{keyword} must be a literal {what} to merge with Static parameters, not {spec!r}; write "
        "its value out literally ({keyword}=(...)), or drop {keyword} and annotate the "
        "parameters instead"
    ),
    "write the spec's value out literally, or drop it and annotate the parameters",
    migrate="{keyword}={spec} is not a literal{kind}; write its value out literally",
)
DONATED = Rule(
    "JR112",
    "a Static argument that is also donated",
    (
        "{name!r} is Static and also donated to {transform}; a static argument cannot be "
        "donated: {remedy}, or drop the Static marker"
    ),
    "drop it from the donate keyword, or drop the Static marker",
    migrate=("{name!r} is static and also donated to {transform}; {remedy}, then migrate again"),
)
MAPPED_STATIC = Rule(
    "JR113",
    "an 'in_axes' that maps a Static argument",
    (
        "{keyword} maps Static parameter {name!r} over axis {axis}; a static argument is not "
        "mapped: write None at its position"
    ),
    "write None at the Static parameter's position",
    lifted=(
        "{transform} passes {name!r} itself and maps it by its own rules, not by {keyword}; "
        "drop the Static marker"
    ),
    short=(
        "{keyword} has {count} entries, but Static parameter {name!r} is at position {at}; "
        "give {keyword} one entry per positional parameter, None at {name!r}'s"
    ),
)
AXES_NOT_LITERAL = Rule(
    "JR114",
    "an 'in_axes' that is not a literal",
    (
        "{keyword} must be a literal int, None or tuple to merge with Static parameters, not "
        "{spec}; write its value out literally ({keyword}=(0, None, ...))"
    ),
    "write the axes out literally",
)
AXES_VARARGS = Rule(
    "JR115",
    "an 'in_axes' that cannot be written for a function with '*args'",
    (
        "cannot spell {keyword} for a function with *{vararg}: give a literal tuple with None at "
        "the Static positions"
    ),
    "give a literal tuple with None at the Static positions",
)
STATIC_DATA_FIELD = Rule(
    "JR116",
    "a Static dataclass field listed in 'data_fields'",
    (
        "field {name!r} is Static but listed in {keyword}; take it out of {keyword}, or drop the "
        "Static marker"
    ),
    "take it out of data_fields, or drop the Static marker",
)
UNSEEN_BASE = Rule(
    "JR117",
    (
        "a dataclass base class whose fields cannot be seen in the module, under "
        "register_dataclass without both field lists"
    ),
    (
        "cannot see the fields of base class {base} of {cls!r} in this module; list {data} and "
        "{meta} explicitly"
    ),
    "list data_fields and meta_fields explicitly",
    details=" (JR133 is a field-function class)",
)
METADATA_NOT_LITERAL = Rule(
    "JR118",
    "dataclass field metadata that is not a literal, in a class register_dataclass reads",
    (
        "cannot tell whether field {name!r} of {cls!r} is static: its metadata is not a literal; "
        "write metadata={{'static': True}} (or False), or annotate it Static[...]"
    ),
    "write metadata={'static': True} (or False), or annotate the field Static[...]",
    details=" (`metadata=dict(static=True)`; JR131 is an Equinox or flax.struct field)",
)
FUNCTION_BOUND_TWICE = Rule(
    "JR119",
    (
        "a function name passed to a transform bound more than one way, not all to defs with the "
        "same Static parameters"
    ),
    (
        "cannot tell which {name!r} this is: the name is bound more than one way where it is "
        "used here, and not every binding is a def with the same Static parameters; bind it once"
    ),
    "bind the function's name once",
    LIMITS,
    details=" (JR104 is the transform's own name)",
)
TOO_MANY_POSITIONAL = Rule(
    "JR120",
    "more positional arguments than the transform takes",
    (
        "{transform} takes {count} positional argument{s} after the function, but {given} are "
        "given; pass the options by keyword"
    ),
    "pass the options by keyword",
)
DIFFERENTIATED = Rule(
    "JR121",
    "a Static or NoDiff parameter that 'grad' or 'value_and_grad' differentiates",
    (
        "{name!r} is {what} but {transform} differentiates it ({keyword} includes {num}); leave "
        "it out of {keyword}, or drop the {what} marker"
    ),
    "leave it out of argnums, or drop the marker",
    details=" (in its `argnums`)",
)
IMPORT_BOUND = Rule(
    "JR122",
    "the module binds '__import__', which the rewritten code calls",
    (
        "the rewritten code calls the builtin __import__, which this module binds to something "
        "else; rename that binding"
    ),
    "rename the module's binding of __import__",
)
ARRAY_NONDIFF = Rule(
    "JR123",
    "an array-typed Static or NoDiff parameter under 'custom_vjp' or 'custom_jvp'",
    (
        "{name!r} is {what} but annotated as an array ({array}); {transform}'s {keyword} are for "
        "non-array values (under jax.jit an array there becomes a tracer the rules close over: "
        "UnexpectedTracerError); drop the marker and pass it as an ordinary argument (its bwd "
        "rule may return None for it: a zero cotangent)"
    ),
    "drop the marker and pass the array as an ordinary argument",
    details=(
        " (`jax.Array`, `jnp.ndarray`, jaxtyping's `Float[Array, ...]`): their "
        "`nondiff_argnums` are for non-array values"
    ),
)
LINEN_TAIL = Rule(
    "JR124",
    "a positional Static parameter among the last two of a method under Linen's 'nn.jit'",
    (
        "{name!r} cannot be static by position under {transform}: {why}; make it keyword-only "
        "(after a '*', it is then static by name), or move it before the last {count} positional "
        "parameters"
    ),
    "make it keyword-only, or move it before the last two positional parameters",
    "flax-linen",
    details=": it cannot take those by position",
)
WRAPPER = Rule(
    "JR125",
    (
        "a wrapper of the module between a transform and a marked def that does not pass '*args, "
        "**kwargs' straight through"
    ),
    (
        "cannot tell which arguments {wrapper}({func}) takes: {wrapper} is defined in this "
        "module and does not pass *args, **kwargs straight through to {func!r}, so the Static "
        "positions of {func!r} may not be its; apply the transform to {func!r} itself, or write "
        "the static keywords by hand"
    ),
    "apply the transform to the def itself, or write the static keywords by hand",
    "wrappers-without-functoolswraps",
)
LEAVES_RECURSE = Rule(
    "JR126",
    (
        "per-leaf statics through a TypedDict or NamedTuple that holds itself again, or nests "
        "into too many"
    ),
    (
        "per-leaf statics cannot follow {name!r}: it holds {held!r} again, and the split is "
        "fixed when the function is wrapped, so it cannot follow a recursion of any depth; pass "
        "the recursive part as its own argument, or mark it Static whole"
    ),
    "pass the nested part as an argument of its own, or mark it Static whole",
    LEAVES,
    many=(
        "per-leaf statics cannot follow {name!r}: its containers nest into more than {most} "
        "containers (the same classes reached along many paths), and the split spells each "
        "one; pass the nested parts as arguments of their own, or mark it Static whole"
    ),
)
TOO_DEEP = Rule(
    "JR127",
    (
        "a marker, transform or transformed function read through more aliases or nested "
        "annotations than jaxrewrite follows, or through a loop"
    ),
    _DEEP,
    "spell the marker, transform or function directly, or through a shorter alias",
    LIMITS,
    marker=(
        "cannot tell whether {expr} holds a marker: {past}; spell the marker (or an alias of "
        "it) directly in the annotation"
    ),
    function=(
        "cannot tell which function {expr} is: {past}; it may be {name!r}, whose Static "
        "parameters would be ignored; pass {name!r} (or a shorter alias of it) to the "
        "transform"
    ),
    container=(
        "cannot tell whether {expr} is a TypedDict or NamedTuple with Static entries: "
        "{past}; name the class directly (or through a shorter alias)"
    ),
    details=(
        ": past 32 links (`S1 = S0`, `S2 = S1`, ...), where reading on would mean "
        'guessing "no marker", "not a transform" or "not that def" and dropping a Static '
        "silently"
    ),
)
FIELD_NOT_STATIC = Rule(
    "JR130",
    "a Static field whose 'eqx.field', 'struct.field' or 'metadata' entry says it is not static",
    (
        "field {name!r} is Static but {spelled}{value} says it is not static for {library}; drop "
        "one of the two"
    ),
    "drop the marker or the keyword that says it is not static",
    FIELDS,
    details=" (`eqx.field(static=False)`, `struct.field(pytree_node=False)`)",
)
FIELD_UNREADABLE = Rule(
    "JR131",
    "a Static field of an Equinox Module or flax.struct dataclass that jaxrewrite cannot read",
    _UNSPELLED
    + "static: {spelled}{value} is not True or False; write {spelled}True, or leave it out",
    "write the field with literal keywords, or with the library's own field function",
    FIELDS,
    redeclared=(
        "field {name!r} of {cls!r} has no value here but a base class gives it one, which a "
        "plain redeclaration inherits and {field}(...) would drop; write the default here"
    ),
    unpacked=_UNSPELLED
    + "already spelled otherwise: its {call}(...) takes **{mapping}; pass the keywords by name",
    metadata=_UNSPELLED
    + (
        "already spelled otherwise: its metadata is not a literal dict; write "
        "{field}({keyword}={static}) instead"
    ),
    call=(
        "cannot tell whether {call}(...) gives Static field {name!r} a value or a dataclass "
        "field; write {field}(default=..., {keyword}={static}) by hand"
    ),
    details=(
        ": `field(**options)`, a non-literal `static=`/`metadata`, a value from an "
        "unknown call, or a redeclared field whose base class gives it a default"
    ),
)
FIELD_NODIFF = Rule(
    "JR132",
    "NoDiff on a field of an Equinox Module or a flax.struct dataclass",
    (
        "NoDiff cannot mark field {name!r} of {library} class {cls!r}: {why}; hold the field out "
        "of differentiation yourself (jax.lax.stop_gradient where it is used, or a partition of "
        "the Module), or mark it Static if it is not an array"
    ),
    "hold the field out of differentiation yourself, or mark it Static",
    FIELDS,
    details=" (neither library can leave one field undifferentiated)",
)
UNSEEN_BASE_FIELD = Rule(
    "JR133",
    (
        "Static fields on a class whose base is not in the module, one of them a "
        "dataclasses.field whose one metadata key cannot speak to every library"
    ),
    (
        "cannot tell what the Static fields of {cls!r} mean: its base {base} is not defined in "
        "this module, and a field's value, dataclasses.field(...) (or two libraries' field "
        "functions), says nothing of which library reads them; write that field with the "
        "library's own field function (eqx.field(static=True, ...), "
        "flax.struct.field(pytree_node=False, ...)) or jaxrewrite.field(static=True, ...), which "
        "both read, or drop Static there: on a Linen or NNX Module attributes are never traced "
        "leaves, so it is not needed"
    ),
    "write the field with the library's own field function, or jaxrewrite.field(static=True, ...)",
    FIELDS,
)

# -- JR2nn: migrate's refusals (the function is left as written) --------------------------------
# Its refusals of JR111, JR112 and JR109's checks carry those codes (JR201, JR210, JR212 before),
# in migrate's own wording (their "migrate" variants).

_HAS = "{keyword} has {i}"
_NAMES = "{keyword} names {name!r}, which is "
_APPLIED = "{name} is applied to "
_AGAIN = ", then migrate again"
_BY_HAND = "; write its markers by hand"


NOT_IN_SIGNATURE = Rule(
    "JR202",
    "a name that is not a parameter JAX can take by keyword",
    _NAMES + "not a parameter{where}; correct or take out {name!r}",
    "fix the name, or annotate the parameter by hand",
    positional=_NAMES
    + "positional-only; give its position instead, or make it positional-or-keyword",
    keyword=_NAMES + "keyword-only: JAX ignores it; take {name!r} out of {keyword}",
)
NEGATIVE = Rule(
    "JR203",
    "a negative position (JAX resolves it per call)",
    _HAS
    + (
        ": JAX counts it from the end of each call's positional arguments, so no one parameter "
        "stands for it; write the parameter's position from the start"
    ),
    "write the position counted from the start",
)
VARARGS = Rule(
    "JR204",
    "a position that falls into *args",
    _HAS
    + (
        ", which falls into *{vararg}; write one parameter instead of *{vararg}, holding the "
        "values as a tuple"
    ),
    "pass the value as a named parameter, or write the markers by hand",
)
OUT_OF_RANGE = Rule(
    "JR205",
    "a position past the parameters (JAX rejects it)",
    _HAS
    + (
        ", but the function takes {count} positional parameters; take {i} out of {keyword} (JAX "
        "rejects it)"
    ),
    "drop the position",
)
ONE_WAY = Rule(
    "JR206",
    "static only by position, or only by keyword",
    (
        "{name!r} is static only when passed by {how} ({missing} leaves it out); an annotation "
        "makes it static both ways; list it in {missing} too if it should be"
    )
    + _AGAIN,
    "give both lists the parameter, or neither",
)
DISAGREE = Rule(
    "JR207",
    "a function given different statics by two transforms or call sites",
    (
        "{where} says {was}, but the annotations would give it {now}; give every use of the "
        "function the same spec"
    )
    + _AGAIN,
    "make the uses agree, or write the markers by hand",
    leaves="{func!r} already has per-leaf statics; write its other static markers by hand",
    axes=(
        "{where} would change: marking {name!r} Static makes its in_axes entry None; write None "
        "there first if it should not be mapped"
    )
    + _AGAIN,
    unread="{where} cannot be read: {why}",
    keyword=(
        "{where} cannot take keyword-only {name!r} as static: {why}; make {name!r} positional, "
        "or leave the function as written"
    ),
)
NOT_LOCAL = Rule(
    "JR208",
    "a call site whose function is not a def of this module",
    _APPLIED + "{arg!r}, which is not a def of this module; apply {name} to a def itself",
    "apply the transform to the def itself, in its own module",
    name=_APPLIED
    + "{arg!r}, which is not statically one def of this module; apply {name} to the def itself",
    imported=_APPLIED
    + "{arg!r}, which lives in another module ({origin}); migrate the module that defines it",
    attribute=_APPLIED
    + "{arg!r}, which lives in another module or object; migrate where it is defined",
    anonymous=_APPLIED + "a lambda, which cannot carry annotations; make it a def",
)
ALIAS = Rule(
    "JR209",
    "a spec written in an alias that other uses share",
    (
        "{keyword} is written in an alias (line {line}) that {use!r} refers to; removing it "
        "there would change every use of the alias; write the spec at each use instead of in the "
        "alias"
    ),
    "write the spec at each use, or migrate by hand",
)
HIDDEN_SIGNATURE = Rule(
    "JR211",
    "a decorator between the transform and the def hides the signature JAX infers from",
    (
        "{transform} infers its static names from the signature of {hidden!r}, which the source "
        "does not show; apply the transform directly to the def, or list the static positions in "
        "{keyword}"
    ),
    "give both static lists, or write the markers by hand",
)
POSITIONAL = Rule(
    "JR213",
    "a spec passed by position",
    "{keyword} is passed to {transform} by position; write it as a keyword first",
    "pass the spec by keyword",
    before=(
        "a spec is passed to {transform} by position before other positional arguments; write it "
        "as a keyword first"
    ),
)
UNSUPPORTED = Rule(
    "JR214",
    "a spec keyword the transform table does not write",
    (
        "{transform}'s {word} is honoured by JAX only in some configurations; the engine writes "
        "{keyword} alone; write the positions in {keyword} instead"
    ),
    "write the markers by hand",
    differentiates=(
        "{transform}'s {keyword} lists what it differentiates, not what is static; leave it as "
        "written"
    ),
)
UNREADABLE = Rule(
    "JR215",
    "a use the analysis cannot read",
    "the analysis does not read this decorator as a transform of the def: {code} {message}",
    "spell the transform itself (jax.jit(...)) or functools.partial of it",
    unspelled=(
        "the analysis does not read this decorator as a transform of the def; spell it as the "
        "transform itself (jax.jit(...)) or functools.partial of it"
    ),
    axes=(
        "{keyword} does not give one axis per positional parameter; write a tuple with one entry "
        "per positional parameter"
    ),
)
MODULE = Rule(
    "JR216",
    "the module header cannot take the pragma, or enabling it changes other code",
    (
        "{name!r} (line {line}) already has jaxrewrite markers, which the pragma would bring to "
        "life; check them, then write the pragma ('{pragma}') by hand and migrate again"
    ),
    "add the pragma and markers by hand",
    empty="the module has no statement after its header; write the pragma and markers by hand",
    shared=(
        "the module header shares a line with code: no line for the pragma; put that code on a "
        "line of its own"
    ),
    unparsed=(
        "the migrated text does not parse ({error}, line {line}): a jaxrewrite bug; report it, "
        "and write the markers by hand"
    ),
    pragma="the pragma added to the header is not recognised (a jaxrewrite bug); write it by hand",
    unrewritten="the migrated module does not rewrite: {code} {message}",
    use=(
        "the pragma would change the {transform} use at line {line}; check that use, then write "
        "the pragma by hand and migrate again"
    ),
)
ROUND_TRIP = Rule(
    "JR217",
    "the migrated module does not rewrite to the same statics",
    "the {transform} use at line {line} would get {now}, not {was}" + _BY_HAND,
    "write the markers by hand",
    unrewritten="the migrated function does not rewrite: {code} {message}",
    rewritten="the {transform} use at line {line} would be rewritten" + _BY_HAND,
    unread="the {transform} use at line {line} cannot be read back" + _BY_HAND,
    unseen="the engine does not see the {transform} use at line {line} as Static" + _BY_HAND,
)

#: Every rule by its code.
RULES: dict[str, Rule] = {r.code: r for r in list(globals().values()) if isinstance(r, Rule)}

#: Codes whose check merged into another: never reused; a noqa naming one silences the other.
RETIRED: dict[str, str] = {"JR201": NOT_LITERAL.code, "JR210": DONATED.code, "JR212": UNPACKED.code}

"""What each JAX transform accepts: one row per transform, read by the planner.

A transform is recognised by the last segment of a qualified name rooted at ``jax``
(``jax.jit``, ``jax._src.api.jit``, ``jax.experimental.pjit.pjit``), so a new transform
is a new row here, never a new branch in the planner.
"""

from __future__ import annotations

from dataclasses import dataclass

STATIC = "STATIC"
NODIFF = "NODIFF"


@dataclass(frozen=True)
class Transform:
    """The static-argument keywords one JAX transform takes."""

    name: str
    #: Parameters carrying any of these markers are static for this transform.
    markers: frozenset[str]
    #: Keyword that receives static positions, if the transform takes positions.
    argnums: str | None
    #: Keyword that receives static names, if the transform takes names.
    argnames: str | None = None
    #: Donation keywords (positions, names); a Static argument must not be donated.
    donate_argnums: str | None = None
    donate_argnames: str | None = None
    #: vmap-style transforms: the keyword whose per-argument axes get ``None`` at static positions.
    in_axes: str | None = None

    @property
    def keywords(self) -> tuple[str, ...]:
        """The keywords jaxrewrite writes, in the order it writes them."""
        return tuple(k for k in (self.argnums, self.argnames, self.in_axes) if k is not None)


_STATIC = frozenset({STATIC})
_STATIC_OR_NODIFF = frozenset({STATIC, NODIFF})

_JIT = Transform("jit", _STATIC, "static_argnums", "static_argnames", "donate_argnums", "donate_argnames")

TRANSFORMS: dict[str, Transform] = {
    "jit": _JIT,
    "pjit": Transform(
        "pjit", _STATIC, "static_argnums", "static_argnames", "donate_argnums", "donate_argnames"
    ),
    "pmap": Transform("pmap", _STATIC, "static_broadcasted_argnums", donate_argnums="donate_argnums"),
    "custom_vjp": Transform("custom_vjp", _STATIC_OR_NODIFF, "nondiff_argnums"),
    "custom_jvp": Transform("custom_jvp", _STATIC_OR_NODIFF, "nondiff_argnums"),
    "checkpoint": Transform("checkpoint", _STATIC, "static_argnums"),
    "remat": Transform("remat", _STATIC, "static_argnums"),
    "vmap": Transform("vmap", _STATIC, None, in_axes="in_axes"),
}


def transform_for(qualname: str) -> Transform | None:
    """The transform a qualified name refers to, if it is one of JAX's."""
    root, _, rest = qualname.partition(".")
    if root != "jax" or not rest:
        return None
    return TRANSFORMS.get(rest.rpartition(".")[2])


@dataclass(frozen=True)
class ClassTransform:
    """A JAX function that registers a class as a pytree, splitting fields into data and meta."""

    name: str
    data_fields: str
    meta_fields: str


CLASS_TRANSFORMS: dict[str, ClassTransform] = {
    "register_dataclass": ClassTransform("register_dataclass", "data_fields", "meta_fields"),
}


def class_transform_for(qualname: str) -> ClassTransform | None:
    """The class-registering function a qualified name refers to, if it is one of JAX's."""
    root, _, rest = qualname.partition(".")
    if root != "jax" or not rest:
        return None
    return CLASS_TRANSFORMS.get(rest.rpartition(".")[2])


#: Transforms that accept per-leaf statics (dict/NamedTuple parameters with Static entries).
PER_LEAF = frozenset({"jit", "pjit"})

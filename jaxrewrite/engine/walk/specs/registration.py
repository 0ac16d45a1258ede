"""The class kind: ``jax.tree_util.register_dataclass``'s ``data_fields``/``meta_fields``.

Forward only: Static fields go to ``meta_fields``, every other init field to ``data_fields``,
merged with the lists the user wrote. A registration is not a transform use (no signature, a
``ClassTransform`` row of its own), so it is outside the ``SpecKind`` dispatch, and migrate
reads none back.
"""

from __future__ import annotations

import ast

from jaxrewrite.engine.read.classes import ClassInfo
from jaxrewrite.engine.read.literals import Values, literal_strs, same
from jaxrewrite.engine.read.source import Source
from jaxrewrite.engine.rulebook import rules
from jaxrewrite.engine.rulebook.table import ClassTransform, Mark
from jaxrewrite.engine.walk.specs.base import by_name


def registration_values(
    t: ClassTransform,
    keywords: tuple[ast.keyword, ...],
    info: ClassInfo,
    src: Source,
    where: ast.expr,
) -> Values | None:
    static = [f for f in info.fields if Mark.STATIC in f.markers]
    if not static:
        return None
    explicit = {kw.arg for kw in keywords} >= {t.data_fields, t.meta_fields}
    for f in info.fields:
        if f.unknown_metadata is not None and not explicit:  # explicit lists: JAX reads no metadata
            raise rules.METADATA_NOT_LITERAL.error(
                src, f.unknown_metadata, name=f.name, cls=info.name
            )
    effective = by_name(keywords, "fields", t.name, src)
    user_data = literal_strs(effective.get(t.data_fields), t.data_fields, src)
    user_meta = literal_strs(effective.get(t.meta_fields), t.meta_fields, src)
    dropped = set(literal_strs(effective.get(t.drop_fields), t.drop_fields, src))
    for f in static:
        if f.name in user_data:
            raise rules.STATIC_DATA_FIELD.error(src, f.node, name=f.name, keyword=t.data_fields)
    if t.data_fields in effective and t.meta_fields in effective:
        meta = tuple(user_meta) + tuple(f.name for f in static if f.name not in user_meta)
        data = tuple(user_data)
    else:
        if info.unseen_base is not None:
            raise rules.UNSEEN_BASE.error(
                src,
                info.unseen_base,
                base=ast.unparse(info.unseen_base),
                cls=info.name,
                data=t.data_fields,
                meta=t.meta_fields,
            )
        fields = [f for f in info.fields if f.init and f.name not in dropped]
        meta_names = set(user_meta) | {f.name for f in static}
        meta = tuple(f.name for f in fields if f.name in meta_names)
        data = tuple(f.name for f in fields if f.name not in meta_names)
    values: Values = [
        (t.data_fields, data, same(effective.get(t.data_fields), data)),
        (t.meta_fields, meta, same(effective.get(t.meta_fields), meta)),
    ]
    if all(node is not None for _, _, node in values):
        return None
    return values

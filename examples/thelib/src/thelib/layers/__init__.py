"""Layers: a subpackage, so the hook and ``jaxrewrite compile`` have to look below the top level."""

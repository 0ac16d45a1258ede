"""The release version; part of the bytecode cache key together with a hash of the rewriter."""

__version__ = "0.1.0"

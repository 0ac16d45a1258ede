"""Shared by the golden and execution tests: where golden cases live and how they run."""

from __future__ import annotations

import sys
import types
from pathlib import Path

from jaxrewrite import RewriteError, rewrite_source

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def inputs() -> list[Path]:
    return sorted(p for p in GOLDEN.rglob("*.py") if not p.name.endswith(".out.py"))


def case_id(path: Path) -> str:
    return path.relative_to(GOLDEN).with_suffix("").as_posix()


def expected_paths(path: Path) -> tuple[Path, Path]:
    """(rewritten output, error message) files for one input."""
    return path.with_name(path.stem + ".out.py"), path.with_name(path.stem + ".err")


def display_name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def render(path: Path) -> tuple[str, bool]:
    """What the engine makes of a golden input: (text, is_error)."""
    source = path.read_text(encoding="utf-8")
    try:
        return rewrite_source(source, display_name(path)), False
    except RewriteError as err:
        return f"{err}\n", True
    except SyntaxError as err:
        return f"{err.filename}:{err.lineno}:{err.offset}: SyntaxError: {err.msg}\n", True


def execute(text: str, filename: str, name: str) -> types.ModuleType:
    """Run module text as a real module (dataclasses and pickling look it up in sys.modules)."""
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    try:
        exec(compile(text, filename, "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[name]
    return module

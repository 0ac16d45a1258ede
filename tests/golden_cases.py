"""Shared by the golden and execution tests: where golden cases live and how they run (rewritten,
executed, or run as a trace-time case that JAX accepts or rejects)."""

from __future__ import annotations

import importlib.util
import sys
import types
import warnings
from pathlib import Path

from jaxrewrite import NotRewrittenWarning, RewriteError, notrewritten, rewrite_source
from jaxrewrite.engine.read.filters import FAST, Filters

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


#: Golden groups pinned by their own tests (findings, migrations), not by the rewrite.
OTHER_GROUPS = frozenset({"check", "migrate"})


def inputs() -> list[Path]:
    return sorted(
        p
        for p in GOLDEN.rglob("*.py")
        if not p.name.endswith(".out.py") and p.relative_to(GOLDEN).parts[0] not in OTHER_GROUPS
    )


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


def execute(text: str, filename: str, name: str, rewritten: bool = True) -> types.ModuleType:
    """Run module text as a real module (dataclasses and pickling look it up in sys.modules).

    ``filename`` names the original file: rewritten text run under it is marked rewritten, as the
    hook marks it; the original text run plainly is exactly what NotRewrittenWarning is about,
    so that warning (tested on its own in test_notrewritten.py) is silenced here.
    """
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    if rewritten:
        notrewritten.REWRITTEN.add(filename)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotRewrittenWarning)
            exec(compile(text, filename, "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[name]
        if rewritten:
            notrewritten.REWRITTEN.discard(filename)
    return module


def outcome(source: str, name: str, filters: Filters = FAST) -> str:
    """A rewrite's result as one comparable string: the text, or the error (the pre-filter
    tests)."""
    try:
        return rewrite_source(source, name, filters=filters)
    except RewriteError as err:
        return f"RewriteError: {err}"
    except SyntaxError as err:
        return f"SyntaxError: {err.lineno}"


#: The errors a trace-time case may raise (tests/rules/tracetime_cases,
#: tests/rules/dataflow_corpus).
TRACE_ERRORS = (
    "TypeError",
    "IndexError",
    "ConcretizationTypeError",
    "TracerIntegerConversionError",
    "TracerBoolConversionError",
)


def jax_rejects(path: Path) -> bool:
    """Import the case and call its ``main()``: does JAX raise one of the trace-time errors?"""
    spec = importlib.util.spec_from_file_location(f"tracetime_case_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.main()
    except Exception as exc:  # noqa: BLE001 - the ground truth is whatever JAX raises
        assert type(exc).__name__ in TRACE_ERRORS, f"{path.name}: unexpected {exc!r}"
        return True
    return False

"""The public markers at run time (``Static``/``NoDiff``, ``is_static``/``is_nodiff``) and
as type checkers see them (``tests/engine/typing/*.py`` under mypy and pyright)."""

from __future__ import annotations

import functools
import inspect
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ForwardRef, Optional, get_args, get_origin

import pytest
from typing_extensions import get_type_hints

import jaxrewrite
from jaxrewrite import NODIFF, STATIC, NoDiff, Static, is_nodiff, is_static, markers

REPO = Path(__file__).resolve().parents[2]
TYPING = Path(__file__).resolve().parent / "typing"


# --- run time -------------------------------------------------------------------------


@pytest.mark.parametrize(
    # Optional is one of the spellings under test.
    "inner",
    [int, float, Callable[[float], float], Optional[int], dict[str, float], Any],  # noqa: UP045
)
def test_static_and_nodiff_are_annotated(inner: Any) -> None:
    assert Static[inner] == Annotated[inner, STATIC]
    assert NoDiff[inner] == Annotated[inner, NODIFF]
    assert get_origin(Static[inner]) is Annotated
    assert get_args(Static[inner]) == (inner, STATIC)
    assert get_args(NoDiff[inner]) == (inner, NODIFF)


def test_bare_static_carries_the_marker() -> None:
    assert get_origin(Static) is Annotated
    assert Static.__metadata__ == (STATIC,)
    assert NoDiff.__metadata__ == (NODIFF,)


def test_markers_are_distinct_public_names() -> None:
    assert STATIC is not NODIFF
    assert repr(STATIC) == "jaxrewrite.STATIC"
    assert repr(NODIFF) == "jaxrewrite.NODIFF"
    assert jaxrewrite.STATIC is STATIC and jaxrewrite.Static is Static


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_markers_pickle_by_reference(protocol: int) -> None:
    assert pickle.loads(pickle.dumps(STATIC, protocol)) is STATIC
    assert pickle.loads(pickle.dumps(NODIFF, protocol)) is NODIFF
    again = pickle.loads(pickle.dumps(Static[int], protocol))
    assert again == Static[int] and again.__metadata__[0] is STATIC


def seed(
    a,
    b,
    c: float,
    c_func: Static[Callable[[float], float]],
    d: NoDiff[float],
    e: Static,
    f: int = 0,
):
    return a


S = Static[Any]


def aliased(x: S, y: Annotated[int, STATIC], z: Static[int], w: Annotated[int, "other"]) -> None:
    pass


def test_is_static_reads_the_signature() -> None:
    params = ["a", "b", "c", "c_func", "d", "e", "f"]
    assert [n for n in params if is_static(seed, n)] == ["c_func", "e"]
    assert [n for n in params if is_nodiff(seed, n)] == ["d"]
    assert is_static(aliased, "x") and is_static(aliased, "y") and is_static(aliased, "z")
    assert not is_static(aliased, "w")


def test_future_annotations_are_resolved() -> None:
    # This module has ``from __future__ import annotations``: every annotation is a string.
    assert seed.__annotations__["c_func"] == "Static[Callable[[float], float]]"
    hints = get_type_hints(seed, include_extras=True)
    assert hints["c_func"] == Static[Callable[[float], float]]
    assert is_static(seed, "c_func")


def test_is_static_follows_functools_wraps() -> None:
    @functools.wraps(seed)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return seed(*args, **kwargs)

    @functools.wraps(wrapper)
    def twice(*args: Any, **kwargs: Any) -> Any:
        return wrapper(*args, **kwargs)

    assert is_static(wrapper, "c_func") and is_static(twice, "c_func")
    assert is_nodiff(twice, "d") and not is_static(twice, "a")


def test_is_static_cannot_see_through_a_wrapper_without_wraps() -> None:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return seed(*args, **kwargs)

    # The run-time check has no signature to read; the rewriter reads the source instead.
    with pytest.raises(ValueError, match="no parameter 'c_func'"):
        is_static(wrapper, "c_func")


def test_is_static_unknown_parameter() -> None:
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        is_static(seed, "nope")


def test_is_static_on_methods() -> None:
    class Model:
        def apply(self, x: float, n: Static[int]) -> float:
            return x * n

        @staticmethod
        def make(n: Static[int]) -> int:
            return n

    assert is_static(Model.apply, "n") and not is_static(Model.apply, "x")
    assert is_static(Model().apply, "n")
    assert is_static(Model.make, "n")


def test_future_annotations_in_a_fresh_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "future_mod.py").write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            from typing import Any
            import jaxrewrite as jr
            from jaxrewrite import Static as S, NoDiff

            Alias = S[Any]

            def f(a: S[int], b: jr.Static[list[int]], c: Alias, d: NoDiff[float], e: int): ...
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with warnings.catch_warnings():
        # No hook imports it, and its string annotations are evaluated as '<string>' code (the
        # markers are read at run time here): the warning is expected.
        warnings.simplefilter("ignore", jaxrewrite.NotRewrittenWarning)
        import future_mod  # type: ignore[import-not-found]

        assert [n for n in "abcde" if is_static(future_mod.f, n)] == ["a", "b", "c"]
        assert [n for n in "abcde" if is_nodiff(future_mod.f, n)] == ["d"]
    sys.modules.pop("future_mod", None)


def _fresh_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> Any:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return __import__(name)


def test_an_unresolvable_annotation_elsewhere_does_not_hide_static(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A type imported only for the type checker: get_type_hints of the whole function fails,
    # but each parameter is answered from its own annotation.
    module = _fresh_module(
        tmp_path,
        monkeypatch,
        "checking_only_mod",
        """
        from __future__ import annotations
        from typing import TYPE_CHECKING
        from jaxrewrite import Static, NoDiff
        if TYPE_CHECKING:
            from numpy.typing import ArrayLike

        def f(x: ArrayLike, n: Static[int], d: NoDiff[float], s: "Static[int]", e: int) -> ArrayLike: ...
        """,  # noqa: E501
    )
    with pytest.raises(NameError, match="ArrayLike"):
        get_type_hints(module.f)
    assert [n for n in "ndse" if is_static(module.f, n)] == ["n", "s"]
    assert [n for n in "ndse" if is_nodiff(module.f, n)] == ["d"]
    with pytest.raises(NameError, match="ArrayLike"):  # the asked parameter's own annotation
        is_static(module.f, "x")


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 type parameters: Python 3.12+")
def test_an_unresolvable_annotation_elsewhere_with_type_parameters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _fresh_module(
        tmp_path,
        monkeypatch,
        "type_params_mod",
        """
        from __future__ import annotations
        from jaxrewrite import Static

        def f[T](x: Missing, n: Static[T], m: T) -> None: ...
        """,
    )
    assert is_static(module.f, "n") and not is_static(module.f, "m")


@pytest.mark.skipif(sys.version_info < (3, 14), reason="PEP 649 deferred annotations: Python 3.14+")
def test_deferred_annotations_without_the_future_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before 3.14 this module fails at the def (NameError); from 3.14 on it imports fine.
    module = _fresh_module(
        tmp_path,
        monkeypatch,
        "deferred_mod",
        """
        from typing import TYPE_CHECKING
        from jaxrewrite import Static
        if TYPE_CHECKING:
            from numpy.typing import ArrayLike

        def f(x: ArrayLike, n: Static[int], s: "Static[int]", e: int) -> ArrayLike: ...
        """,
    )
    assert [n for n in "nse" if is_static(module.f, n)] == ["n", "s"]


class _Deferred:
    """A function as Python 3.14 shows one whose annotation names something undefined:
    evaluating its annotations (``__annotations__``, format VALUE) raises NameError."""

    __globals__ = globals()
    __signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in "xndswe"]
    )

    def __call__(self, x: Any, n: Any, d: Any, s: Any, w: Any, e: Any) -> None: ...

    @property
    def __annotations__(self) -> dict[str, Any]:  # type: ignore[override]
        raise NameError("name 'ArrayLike' is not defined")


def test_deferred_annotations_are_read_through_annotationlib(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.14's branch, simulated: the annotations come from ``annotationlib`` in format
    FORWARDREF, where a name that does not resolve is a ForwardRef instead of an error."""
    formats: list[object] = []
    forwardref = object()

    def get_annotations(obj: object, *, format: object) -> dict[str, object]:
        assert obj is target
        formats.append(format)
        return {
            "x": ForwardRef("ArrayLike"),
            "n": Static[int],
            "d": "NoDiff[float]",  # a string annotation stays a string in FORWARDREF format
            "s": ForwardRef("Static[int]"),
            "e": int,
        }

    real_signature = inspect.signature

    def signature(obj: Any, *, annotation_format: object) -> inspect.Signature:
        # inspect.signature evaluates annotations (format VALUE) unless told otherwise on 3.14+.
        formats.append(annotation_format)
        return real_signature(obj)

    fake = types.SimpleNamespace(
        Format=types.SimpleNamespace(FORWARDREF=forwardref), get_annotations=get_annotations
    )
    monkeypatch.setattr(markers, "_annotationlib", fake)
    monkeypatch.setattr(inspect, "signature", signature)
    target = _Deferred()
    with pytest.raises(NameError):
        get_type_hints(target)
    assert [n for n in "ndswe" if is_static(target, n)] == ["n", "s"]
    assert [n for n in "ndswe" if is_nodiff(target, n)] == ["d"]
    with pytest.raises(NameError, match="ArrayLike"):
        is_static(target, "x")
    assert formats and all(f is forwardref for f in formats)


def test_annotationlib_is_used_exactly_where_it_exists() -> None:
    try:
        import annotationlib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        assert markers._annotationlib is None
    else:
        assert markers._annotationlib is annotationlib


# --- type checkers --------------------------------------------------------------------

_EXPECT = re.compile(r"reveal_type\((?P<name>\w+)\)\s*#\s*expect:\s*(?P<type>.+?)\s*$")


def _expected_reveals(path: Path) -> dict[int, str]:
    """1-based line -> the type its ``reveal_type(...)  # expect: T`` comment names."""
    found = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        m = _EXPECT.search(line)
        if m:
            found[number] = m.group("type")
    assert found, f"{path} has no reveal_type expectations"
    return found


def _mypy(path: Path, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is in the test extras: pip install -e '.[test]'")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")  # this test's flags only, not the project's [tool.mypy]
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports=silent",
            "--python-version",
            "3.10",
            *flags,
            str(path.relative_to(REPO)),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


def _mypy_reveals(out: str) -> dict[int, str]:
    return {
        int(m.group(1)): m.group(2)
        for m in re.finditer(r':(\d+): note: Revealed type is "(.*)"', out)
    }


@pytest.mark.parametrize("name", ["sample.py", "bare.py"])
def test_mypy_sees_the_wrapped_type(name: str, tmp_path: Path) -> None:
    path = TYPING / name
    flags = ("--strict",) if name == "sample.py" else ()
    proc = _mypy(path, tmp_path, *flags)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _mypy_reveals(proc.stdout) == _expected_reveals(path), proc.stdout


def test_mypy_strict_accepts_bare_static(tmp_path: Path) -> None:
    proc = _mypy(TYPING / "bare.py", tmp_path, "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _pyright() -> list[str]:
    from support import missing  # here: the Python 3.14 leg (Pyodide) loads this file too

    exe = shutil.which("pyright") or (str(Path(sys.executable).parent / "pyright"))
    if not os.access(exe, os.X_OK):
        missing("pyright", "pip install -e '.[typecheck]'")
    probe = subprocess.run(
        [exe, "--version"], capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL
    )
    if probe.returncode != 0:
        missing(
            "pyright",
            "it cannot run here; it fetches its npm package on first use: "
            f"{probe.stderr.strip()[-300:]}",
        )
    return [exe]


def _pyright_run(path: Path) -> tuple[int, list[dict[str, Any]]]:
    proc = subprocess.run(
        [
            *_pyright(),
            "--outputjson",
            "--pythonversion",
            "3.10",
            "--pythonpath",
            sys.executable,
            str(path),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright printed no JSON report:\n{proc.stdout}\n{proc.stderr}")
    return proc.returncode, report["generalDiagnostics"]


def _pyright_reveals(diagnostics: list[dict[str, Any]]) -> dict[int, str]:
    reveals = {}
    for d in diagnostics:
        m = re.fullmatch(r'Type of "\w+" is "(.*)"', d["message"])
        if d["severity"] == "information" and m:
            # pyright calls an implicit Any "Unknown"
            reveals[d["range"]["start"]["line"] + 1] = (
                "Any" if m.group(1) == "Unknown" else m.group(1)
            )
    return reveals


@pytest.mark.parametrize("name", ["sample.py", "bare.py"])
def test_pyright_sees_the_wrapped_type(name: str) -> None:
    path = TYPING / name  # sample.py says ``# pyright: strict`` in its first line
    rc, diagnostics = _pyright_run(path)
    errors = [d for d in diagnostics if d["severity"] != "information"]
    assert rc == 0 and not errors, json.dumps(errors, indent=1)
    assert _pyright_reveals(diagnostics) == _expected_reveals(path)


def test_pyright_strict_accepts_bare_static(tmp_path: Path) -> None:
    strict = tmp_path / "bare_strict.py"
    strict.write_text("# pyright: strict\n" + (TYPING / "bare.py").read_text())
    rc, diagnostics = _pyright_run(strict)
    errors = [d for d in diagnostics if d["severity"] != "information"]
    assert rc == 0 and not errors, json.dumps(errors, indent=1)


def test_a_marker_subscribed_by_a_class_is_typings_own_alias() -> None:
    """``Static[int]`` is typing's ``Annotated[int, STATIC]``, the same object each time."""
    import typing

    from jaxrewrite.markers import NODIFF, STATIC, NoDiff, Static

    first = Static[int]
    assert first == typing.Annotated[int, STATIC] and type(first) is type(
        typing.Annotated[int, STATIC]
    )
    assert NoDiff[int] == typing.Annotated[int, NODIFF] and NoDiff[int] != first
    assert Static[int] is first

    def f(n: Static[int], m: Static, k: NoDiff[float]) -> None: ...

    hints = typing.get_type_hints(f, include_extras=True)
    assert hints == {
        "n": typing.Annotated[int, STATIC],
        "m": Static,
        "k": typing.Annotated[float, NODIFF],
        "return": type(None),
    }
    assert (
        Static[list[int]] == typing.Annotated[list[int], STATIC]
    )  # not a plain class: typing's path
    assert typing.Annotated[Static[int], "x"].__metadata__ == (STATIC, "x")

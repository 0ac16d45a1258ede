"""``%load_ext jaxrewrite``: every later cell opts in, rewritten against the live namespace.

A function in ``shell.input_transformers_post``: the rewrite is textual, so line numbers never
move and what runs is what ``%%jaxrewrite_show`` prints. Loading also installs the import hook.
IPython is never imported here: the shell is handed in (docs/design.md, "The IPython extension").
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import re
import warnings
from types import CodeType
from typing import Any

from jaxrewrite.engine.build import build_analysis
from jaxrewrite.engine.read.source import unified_diff
from jaxrewrite.engine.rewrite import rewritten
from jaxrewrite.errors import NotRewrittenWarning, RewriteError
from jaxrewrite.hook.finder import HookHandle, install
from jaxrewrite.integrations.namespace import MISSING, WORD, StandIn, definitions, prepare

__all__ = ["SHOW_MAGIC", "CellRewriter", "load_ipython_extension", "unload_ipython_extension"]

#: ``%%jaxrewrite_show [--diff]``: print what the cell runs as, without running it.
SHOW_MAGIC = "jaxrewrite_show"
#: The file name the engine reads a cell under; errors get IPython's own name for the cell.
CELL = "<cell>"
#: Text that may define what later cells need to know about (a superset: comments count).
_DEFINES = re.compile(r"\b(?:def|class|TypedDict|NamedTuple)\b")
#: ``%load_ext jaxrewrite`` as IPython's transforms leave it in the cell.
_LOAD = re.compile(r"""run_line_magic\(\s*['"]load_ext['"]\s*,\s*['"][^'"]*\bjaxrewrite\b""")


class CellRewriter:
    """The extension in one shell: the transform, the defs earlier cells made, the import hook."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        #: Module-level defs with marked parameters and classes with marked fields, by name.
        self.recorded: dict[str, tuple[StandIn, object]] = {}
        #: Defs of the cell being run (stand-in or None), with what their name held before it.
        self._pending: dict[str, tuple[StandIn | None, object]] = {}
        self._hook: HookHandle | None = None

    def load(self) -> None:
        self.shell.input_transformers_post.append(self.transform)
        self.shell.events.register("post_run_cell", self.post_run_cell)
        self.shell.register_magic_function(self.show_magic, "cell", SHOW_MAGIC)
        self._hook = install()

    def unload(self) -> None:
        transforms = self.shell.input_transformers_post
        transforms[:] = [t for t in transforms if t != self.transform]
        with contextlib.suppress(ValueError):  # already gone
            self.shell.events.unregister("post_run_cell", self.post_run_cell)
        self.shell.magics_manager.magics["cell"].pop(SHOW_MAGIC, None)
        if self._hook is not None:
            self._hook.uninstall()
            self._hook = None

    def transform(self, lines: list[str]) -> list[str]:
        """IPython's hook: the cell (after IPython's own transforms) as it should run."""
        text = "".join(lines)
        out = self.rewrite(text, record=True)
        return lines if out == text else out.splitlines(keepends=True)

    def rewrite(
        self, text: str, *, record: bool = False, offset: int = 0, raw: str | None = None
    ) -> str:
        """``text`` rewritten against the namespace as it is now. ``offset``: the lines of the cell
        before ``text`` (a cell magic's own); ``raw``: the whole cell, named in errors;
        ``record``: remember the cell's marked defs and classes once it has run."""
        environment, prefix, relevant = prepare(text, self.shell.user_ns, self.recorded)
        if not relevant:
            if record and self.recorded and not self.recorded.keys().isdisjoint(WORD.findall(text)):
                self._remember(text, environment)  # ``fast = make_hypercube``
            return text
        shift = prefix.count("\n")
        try:
            analysis = build_analysis(
                prefix + text, CELL, environment=environment, require_pragma=False
            )
        except RewriteError:
            raise
        except SyntaxError:
            # Not Python (yet): IPython's own compiler reports it, the way it always does.
            return text
        # Findings located in the cell, under the name IPython shows it by.
        found = [d for d in analysis.diagnostics if d.line > shift]
        name = self._cell_name(text if raw is None else raw) if found else CELL
        delta = offset - shift
        findings = [
            dataclasses.replace(
                d,
                filename=name,
                line=d.line + delta,
                end_line=None if d.end_line is None else d.end_line + delta,
            )
            for d in found
        ]
        out = rewritten(dataclasses.replace(analysis, diagnostics=findings))
        if not out.startswith(prefix):
            raise AssertionError("jaxrewrite internal error: a stand-in line was edited")
        out = out[len(prefix) :]
        if record and (prefix or _DEFINES.search(text)):
            self._remember(text, environment)
        return out

    def _cell_name(self, text: str) -> str:
        """The name IPython shows as ``Cell In[N]``, registered with the shell's compiler."""
        try:
            name = self.shell.compile.cache(text, self.shell.execution_count, raw_code=text)
        except Exception:  # a shell without IPython's caching compiler
            return CELL
        return name if isinstance(name, str) else CELL

    def _remember(self, text: str, environment: dict[str, Any]) -> None:
        try:
            leaves = frozenset(name for name, (s, _) in self.recorded.items() if s.is_class)
            found, rebound = definitions(text, environment, leaves)
        except SyntaxError:
            return
        namespace = self.shell.user_ns
        for name, stand_in in found.items():
            self._pending[name] = (stand_in, namespace.get(name, MISSING))
        # ``make_hypercube = jax.jit(make_hypercube)``: the name keeps the def's stand-in.
        for target, source in rebound.items():
            if target in found and target != source:
                continue  # a def of that name in the cell too: its own statement decides
            kept = found.get(source)
            earlier, made = self.recorded.get(source, (None, None))
            if kept is None and made is namespace.get(source, MISSING):
                kept = earlier
            if kept is not None:
                self._pending[target] = (kept, namespace.get(target, MISSING))

    def post_run_cell(self, result: object = None) -> None:
        """After a cell ran: remember the object each def or class that ran made. A name the
        cell did not rebind (it failed first) keeps its old record; one rebound to anything but
        what the statement made (``f = 3``) loses it; ``f = jax.jit(f)`` keeps it."""
        pending, self._pending = self._pending, {}
        namespace = self.shell.user_ns
        for name, (stand_in, before) in pending.items():
            now = namespace.get(name, MISSING)
            if now is before:
                continue
            if stand_in is None or now is MISSING or not _made_by(now, stand_in):
                self.recorded.pop(name, None)
            else:
                self.recorded[name] = (stand_in, now)

    def warn_if_loaded_mid_cell(self) -> None:
        """``%load_ext jaxrewrite`` in the cell being run (``ipython -c``, a ``.ipy`` file): IPython
        transformed the whole cell first, so the rest runs as written; say so where that loses
        something."""
        result = getattr(getattr(self.shell, "displayhook", None), "exec_result", None)
        raw = getattr(getattr(result, "info", None), "raw_cell", None)
        if not isinstance(raw, str):
            return
        try:
            text = self.shell.input_transformer_manager.transform_cell(raw)
        except Exception:  # not a cell IPython could transform: nothing of it is run either
            return
        lines = text.splitlines(keepends=True)
        loads = [at for at, line in enumerate(lines) if _LOAD.search(line)]
        if not loads:
            return
        # The rest of the cell, with the lines before it blank: line numbers stay the cell's.
        rest = "\n" * (loads[0] + 1) + "".join(lines[loads[0] + 1 :])
        try:
            analysis = build_analysis(rest, CELL, require_pragma=False)
        except SyntaxError:
            return  # IPython reports it; a RewriteError would have been raised on a later cell
        first = analysis.first_edit()
        if first is None and not analysis.fields:
            return
        line = (
            first.target.lineno
            if first is not None
            else min(f.stmt.lineno for f in analysis.fields)
        )
        warnings.warn_explicit(
            f"jaxrewrite was loaded in the middle of this cell (line {loads[0] + 1}): IPython "
            "transforms a cell before running any of it, so the rest of the cell runs as written "
            f"and its Static/NoDiff annotations do nothing (line {line}); load it in a cell of its "
            "own, or start IPython with '--ext jaxrewrite' (ipython --ext jaxrewrite -c ..., "
            "ipython --ext jaxrewrite file.ipy)",
            NotRewrittenWarning,
            self._cell_name(raw),
            line,
        )

    def show_magic(self, line: str, cell: str) -> None:
        """%%jaxrewrite_show [--diff]: print what this cell runs as, running nothing."""
        options = line.split()
        if any(option != "--diff" for option in options):
            print(f"usage: %%{SHOW_MAGIC} [--diff]")
            return
        text = self.shell.input_transformer_manager.transform_cell(cell)
        try:
            out = self.rewrite(text, offset=1, raw=f"%%{SHOW_MAGIC} {line}\n{cell}")
        except RewriteError:
            self.shell.showsyntaxerror()
            return
        count = self.shell.execution_count
        print(unified_diff(text, out, f"In[{count}]") if "--diff" in options else out, end="")


def _made_by(value: object, stand_in: StandIn) -> bool:
    """Is ``value`` the class of that name, or the function the def made (through
    ``__wrapped__``)?"""
    if stand_in.is_class:
        return isinstance(value, type) and value.__name__ == stand_in.name
    try:
        func = inspect.unwrap(value)  # type: ignore[arg-type]
        code = getattr(func, "__code__", None)
    except Exception:  # a cycle of __wrapped__, or an object whose attributes raise
        return False
    return (
        isinstance(code, CodeType)
        and code.co_name == stand_in.name
        and code.co_firstlineno == stand_in.first_line
    )


#: One CellRewriter per shell that loaded the extension.
_active: dict[int, CellRewriter] = {}


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jaxrewrite``: cells run from now on are rewritten (loading twice is a no-op)."""
    if id(ipython) in _active:  # its rewriter holds the shell: the id cannot be another's
        return
    rewriter = CellRewriter(ipython)
    rewriter.load()
    _active[id(ipython)] = rewriter
    rewriter.warn_if_loaded_mid_cell()


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext jaxrewrite``: cells run as written again; the import hook is withdrawn."""
    rewriter = _active.pop(id(ipython), None)
    if rewriter is not None:
        rewriter.unload()

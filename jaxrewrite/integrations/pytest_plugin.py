"""The pytest plugin (entry point ``pytest11``/``jaxrewrite``; off with ``-p no:jaxrewrite``).

Test modules and conftests that opt in are rewritten **and** keep pytest's assertion rewriting:
jaxrewrite's finder sits in front of pytest's ``AssertionRewritingHook``, asks it, and for a file
that opts in swaps in a loader whose pipeline rewrites the text, then runs ``rewrite_asserts``
(docs/design.md, "The pytest plugin").
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import sys
import warnings
from dataclasses import dataclass
from types import CodeType

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook, rewrite_asserts

from jaxrewrite.errors import NotRewrittenWarning
from jaxrewrite.hook.finder import HookHandle, install
from jaxrewrite.hook.pycfile import Pipeline

__all__ = ["pipeline_name"]

INI = "jaxrewrite_packages"
#: The switch for a marked module that runs unrewritten: "error" (the default) or "warn".
NOT_REWRITTEN = "jaxrewrite_not_rewritten"
#: NotRewrittenWarning an error by default where jaxrewrite read the module and found what is lost
#: ("module 'x' was not rewritten, so ..."); ``-W`` on the command line wins.
ERROR_FILTER = "error:module :jaxrewrite.NotRewrittenWarning"


@dataclass
class _State:
    """What one pytest session installed."""

    handle: HookHandle | None
    #: The packages named: the hook stays past collection for them.
    names: list[str]
    #: NotRewrittenWarnings said while conftests loaded, before the ini's error filter applied;
    #: None where they are no error (the ini's NOT_REWRITTEN is "warn").
    early: list[str] | None


_STATE = pytest.StashKey[_State]()
#: pytest sessions of this process with the plugin started.
_sessions: list[pytest.Config] = []


def not_rewritten_fix(package: str) -> str | None:
    """What NotRewrittenWarning says to do under pytest."""
    if not _sessions:
        return None
    return (
        "under pytest, the code under test is rewritten only for the packages named: run pytest "
        f"with --jaxrewrite-packages={package}, or add {package!r} to the {INI} ini option "
        f'(or packages = ["{package}"] in [tool.jaxrewrite] of pyproject.toml)'
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(
        "jaxrewrite", "jaxrewrite (Static[T] in test modules and the code under test)"
    )
    named = (
        "top-level packages whose modules that opt in are rewritten when imported (the code under "
        "test)"
    )
    group.addoption(
        "--jaxrewrite-packages",
        action="append",
        default=[],
        dest="jaxrewrite_packages",
        metavar="PKG[,PKG...]",
        help=f"{named}, added to the {INI} ini option. Test modules and conftest files that opt "
        "in are rewritten without it.",
    )
    parser.addini(INI, type="args", default=[], help=named)
    parser.addini(
        NOT_REWRITTEN,
        default="error",
        help="a module that opts in but runs without the rewrite (its Static parameters traced, "
        "its Static fields pytree leaves): 'error' (the default: the import fails) or 'warn' "
        "(a NotRewrittenWarning in the summary)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before the first conftest is imported: those that opt in are rewritten too."""
    _start(early_config)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """For a plugin registered too late for the hook above (``-p`` from ``PYTEST_PLUGINS``...)."""
    _start(config)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Plugins configured after this one (jaxtyping's) put their finder first: jaxrewrite's goes
    in front again, to compose with their loaders."""
    state = session.config.stash.get(_STATE, None)
    if state is not None and state.handle is not None:
        install(owned=state.handle.owned).uninstall()


def pytest_warning_recorded(warning_message: warnings.WarningMessage, when: str) -> None:
    """A NotRewrittenWarning said while the conftests loaded, before the ini's error filter was
    in force: an error of the run once collection is over."""
    message = warning_message.message
    if (
        when == "config"
        and isinstance(message, NotRewrittenWarning)
        and str(message).startswith("module ")
    ):
        for config in _sessions:
            early = config.stash[_STATE].early
            if early is not None:
                early.append(f"{warning_message.filename}:{warning_message.lineno}: {message}")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Every test module and conftest is imported: leave the meta path as pytest has it. A
    package named that cannot be found now (they may put it on ``sys.path``) is a typo."""
    state = session.config.stash[_STATE]
    if state.handle is not None and not state.names:
        state.handle.uninstall()  # idempotent: unconfigure withdraws it again
    missing = [
        name
        for name in state.names
        if name not in sys.modules and importlib.util.find_spec(name) is None
    ]
    if missing:
        raise pytest.UsageError(
            f"--jaxrewrite-packages / {INI} / [tool.jaxrewrite] packages name "
            f"{', '.join(map(repr, missing))}, which cannot be imported: no such top-level package "
            "on sys.path"
        )
    if state.early:
        lines = "\n".join(state.early)
        raise pytest.UsageError(
            f"NotRewrittenWarning (an error: {NOT_REWRITTEN} = error):\n{lines}"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None and state.handle is not None:
        state.handle.uninstall()
    _sessions[:] = [live for live in _sessions if live is not config]


def _start(config: pytest.Config) -> None:
    from jaxrewrite import config as settings

    if config.stash.get(_STATE, None) is not None:
        return
    # The packages named by --jaxrewrite-packages, the ini option and [tool.jaxrewrite] (the
    # nearest pyproject.toml with that table, from pytest's rootdir up).
    known = getattr(config, "known_args_namespace", None)
    given = getattr(known, "jaxrewrite_packages", None)
    if given is None:
        given = config.getoption("jaxrewrite_packages", None) or []
    try:
        configured = settings.discover(str(config.rootpath)).packages
    except settings.ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    words = [*config.getini(INI), *given, *configured]
    names = sorted(
        {name.strip() for word in words for name in str(word).split(",") if name.strip()}
    )
    bad = [name for name in names if not name.isidentifier()]
    if bad:
        raise pytest.UsageError(
            f"--jaxrewrite-packages / {INI} take top-level package names, not {bad}"
        )
    mode = str(config.getini(NOT_REWRITTEN)).strip().lower()
    if mode not in ("error", "warn"):
        raise pytest.UsageError(f"{NOT_REWRITTEN} takes 'error' or 'warn', not {mode!r}")
    state = config.stash[_STATE] = _State(None, names, [] if mode == "error" else None)
    if mode == "error":
        # First of the ini's filterwarnings: the ini's own entries, -W, and a test's
        # filterwarnings mark or pytest.warns all still win.
        config.getini("filterwarnings").insert(0, ERROR_FILTER)
    _sessions.append(config)
    hook = next(
        (f for f in sys.meta_path if isinstance(f, AssertionRewritingHook) and f.config is config),
        None,
    )
    if hook is None and not names:
        return  # --assert=plain and no packages: nothing to find (see the guide)
    if hook is None:
        state.handle = install(names)
        return
    # First on sys.meta_path, in front of pytest's hook (which finds test modules for itself):
    # jaxrewrite's rewrite, then pytest's assertion rewriting.
    name = pipeline_name(pytest.__version__, bool(config.getini("enable_assertion_pass_hook")))
    to_code = functools.partial(_assertions_rewritten, config)
    state.handle = install(names, owned=((hook, Pipeline(name=name, to_code=to_code)),))


def pipeline_name(version: str, pass_hook: bool) -> str:
    """The pipeline's part of the cache tag: what decides the code ``rewrite_asserts`` writes."""
    digest = hashlib.sha256(f"{version}|{bool(pass_hook)}".encode()).hexdigest()[:12]
    return f"pytest{digest}"


def _assertions_rewritten(config: pytest.Config, text: str, path: str, optimize: int) -> CodeType:
    """What pytest's ``_rewrite_test`` does, on jaxrewrite's text."""
    tree = ast.parse(text, filename=path)
    rewrite_asserts(tree, text.encode("utf-8"), path, config)
    return compile(tree, path, "exec", dont_inherit=True, optimize=optimize)

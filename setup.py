"""Builds write into the wheel the cache tag's digests of the files they package, so that an
installed jaxrewrite hashes none of its own sources on its first opted-in import (jaxrewrite/hook/cachetag.py
says why). Metadata is in setup.cfg; an editable install writes nothing: its sources are edited."""

import importlib.util
import os

from setuptools import setup
from setuptools.command.build_py import build_py


def _load(path: str, name: str):  # type: ignore[no-untyped-def]
    """A module of the package by its path: importing ``jaxrewrite`` needs its dependencies,
    which a build environment lacks; these two import nothing of it."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithDigests(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        package = os.path.join(self.build_lib, "jaxrewrite")
        digest = _load(os.path.join(package, "hook", "tag.py"), "_jaxrewrite_tag")
        version = _load(os.path.join(package, "version.py"), "_jaxrewrite_version").__version__
        self.announce(f"writing {digest.bake(package, version)}", level=2)


setup(cmdclass={"build_py": BuildWithDigests})

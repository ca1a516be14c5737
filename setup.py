"""The build step that pyproject.toml cannot declare: a wheel records the git commit it
is built from (``treestrap --version`` reads it where there is no git)."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent / "src"


class BuildWithCommit(build_py):
    def run(self) -> None:
        super().run()
        sys.path.insert(0, str(SOURCE))  # the package's own helper, from this tree
        from treestrap.version import record_commit

        record_commit(SOURCE / "treestrap", Path(self.build_lib) / "treestrap")


setup(cmdclass={"build_py": BuildWithCommit})

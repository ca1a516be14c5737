"""The docs say what the code does: the module map of docs/architecture.md names every
module of the package and nothing else, and docs/commands.md has a section for every
subcommand."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = REPO_ROOT / "src" / "treestrap"
DOCS = REPO_ROOT / "docs"

#: A path of the package as the map writes it: `core/position.py`, `supervised/models/`.
_MAP_PATH = re.compile(r"`((?:[a-z_0-9]+/)*[a-z_0-9]+(?:\.py|/))`")


def _package_paths() -> tuple[set[str], set[str]]:
    """The package's modules (``__init__.py`` left out: its folder stands for it) and its
    nested packages, as paths relative to ``src/treestrap/``. The layers themselves
    (``core/``, ``search/``, ...) are the map's headings."""
    modules = {
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    }
    packages = {
        p.parent.relative_to(PACKAGE).as_posix() + "/"
        for p in PACKAGE.rglob("__init__.py")
        if len(p.relative_to(PACKAGE).parts) > 2 and "__pycache__" not in p.parts
    }
    return modules, packages


def _module_map() -> set[str]:
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    named = set(_MAP_PATH.findall(section))
    # the map's own prose: where paths start from, and a package's __init__.py
    return {p for p in named if not p.startswith("src/") and p != "__init__.py"}


def test_module_map_names_every_module() -> None:
    modules, packages = _package_paths()
    missing = sorted((modules | packages) - _module_map())
    assert not missing, f"docs/architecture.md's module map lacks: {missing}"


def test_module_map_names_only_real_modules() -> None:
    modules, packages = _package_paths()
    layers = {p.parent.name + "/" for p in PACKAGE.glob("*/__init__.py")}
    unknown = sorted(_module_map() - modules - packages - layers)
    assert not unknown, f"docs/architecture.md's module map names what does not exist: {unknown}"


def test_commands_page_covers_every_subcommand() -> None:
    from treestrap.cli import COMMANDS

    headings = re.findall(
        r"^## `treestrap ([a-z]+)", (DOCS / "commands.md").read_text(encoding="utf-8"), re.M
    )
    assert sorted(set(headings)) == sorted(COMMANDS)

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
        r"^## `treestrap ([a-z0-9]+)", (DOCS / "commands.md").read_text(encoding="utf-8"), re.M
    )
    assert sorted(set(headings)) == sorted(COMMANDS)


def _readme_first_command() -> tuple[str, str]:
    """The README's first command and the paragraph that says what it does."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    command = readme.split("```bash\n", 1)[1].split("\n```", 1)[0]
    paragraph = readme.split("The first command", 1)[1].split("\n\n", 1)[0]
    return command, " ".join(paragraph.split())


def test_readme_first_command_does_what_it_says() -> None:
    from treestrap.cli import build_parser
    from treestrap.reproduce.veness2009 import BUDGETS

    command, says = _readme_first_command()
    assert command.endswith("treestrap reproduce veness2009 --budget quick")
    args = build_parser().parse_args(command.split(".venv/bin/treestrap ", 1)[1].split())
    quick = BUDGETS[args.budget]
    assert f"({quick.games} games each, depth-{quick.depth} searches" in says
    assert args.workers == 2 and "two runs at a time" in says
    assert "the untrained player at 250 Elo" in says
    # where it writes and what: the command's default directory, the table and the plot
    source = (PACKAGE / "commands" / "reproduce.py").read_text(encoding="utf-8")
    assert 'f"runs/{args.experiment}-{args.budget}"' in source
    assert "to `runs/veness2009-quick/`" in says
    assert '"table.txt"' in (PACKAGE / "reproduce" / "veness2009.py").read_text(encoding="utf-8")
    assert '"curve.png"' in (PACKAGE / "training" / "curve.py").read_text(encoding="utf-8")
    assert "(`table.txt`, printed at the end)" in says and "(`curve.png`)" in says
    assert '(Path(out) / "table.txt").read_text()' in source  # printed at the end
    # the measured time, as the command's own help states it
    assert "About 10 minutes on 2 cores" in says and "quick (~10 minutes on 2" in source

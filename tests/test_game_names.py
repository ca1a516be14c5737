"""Outside a game's own modules nothing names a game: the game-neutral layers ask the
game's facts or contract (games/registry.py) for what differs, never compare with a
game's name and never test a model's class.

The walk covers the game-neutral layers of ``src/treestrap``; a game's own modules are
those under a directory or in a file named after it (``connect4/``,
``play/connect4/``, ``reports/connect4_weights.py``, ``bootstrap/chess_fitting.py``,
...) and chess's compiled core
(``core/``, ``search/``, ``evaluation/``, ``engine/``), with the paper reproductions
and tools of chess alone (``supervised/``, ``reproduce/serban2014``, ``distill``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from treestrap.games.registry import game_names

SRC = Path(__file__).resolve().parents[1] / "src" / "treestrap"
#: The game-neutral layers, walked for game names.
NEUTRAL = (
    "training",
    "distributed",
    "learn",
    "play",
    "rating",
    "reports",
    "commands",
    "bootstrap",
)
NEUTRAL_FILES = ("cli.py", "games/registry.py", "games/contract.py", "games/facts.py")
#: Constants that hold a game's name.
NAME_CONSTANTS = {"CHESS", "CONNECT4"}


def _model_classes() -> set[str]:
    """The model classes of the games (chess's linear and network models, Connect
    Four's): the names a neutral layer must not pass to ``isinstance``."""
    found = set()
    for path in [*(SRC / "games").glob("*.py"), *(SRC / "evaluation").glob("*weights.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Model"):
                found.add(node.name)
    return found


def _own_module(path: Path) -> bool:
    """Whether ``path`` is a game's own module (its name or a folder's names a game)."""
    parts = path.relative_to(SRC).parts
    return any(name in part for part in parts for name in game_names())


def _neutral_modules() -> list[Path]:
    paths = [p for layer in NEUTRAL for p in (SRC / layer).rglob("*.py")]
    paths += [SRC / f for f in NEUTRAL_FILES]
    return sorted(p for p in paths if not _own_module(p))


def _names_game(node: ast.AST) -> bool:
    """A game's name as a literal, or a constant that holds one."""
    if isinstance(node, ast.Constant):
        return node.value in game_names()
    if isinstance(node, ast.Name):
        return node.id in NAME_CONSTANTS
    if isinstance(node, ast.Attribute):
        return node.attr in NAME_CONSTANTS
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_game(e) for e in node.elts)
    return False


def _class_names(node: ast.AST) -> list[str]:
    """The class names of an ``isinstance`` second argument (a name, a tuple, a union)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Tuple):
        return [n for e in node.elts for n in _class_names(e)]
    if isinstance(node, ast.BinOp):
        return _class_names(node.left) + _class_names(node.right)
    return []


def offences(source: str, where: str, models: set[str]) -> list[str]:
    """Every comparison with a game's name and every ``isinstance`` on a game's model
    class in the module text ``source``, as ``where:line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_names_game(side) for side in [node.left, *node.comparators]):
                found.append(f"{where}:{node.lineno}: compares with a game's name")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
        ):
            classes = [c for c in _class_names(node.args[1]) if c in models]
            if classes:
                found.append(f"{where}:{node.lineno}: isinstance on {', '.join(classes)}")
    return found


def test_the_walk_sees_the_layers_and_the_model_classes() -> None:
    modules = _neutral_modules()
    assert len(modules) > 80
    assert SRC / "training" / "run.py" in modules
    assert SRC / "play" / "connect4" / "measure.py" not in modules
    assert SRC / "bootstrap" / "pipeline.py" in modules
    assert SRC / "bootstrap" / "connect4_provider.py" not in modules
    assert {"LinearModel", "NetworkModel", "Connect4Model", "Connect4NetworkModel"} <= (
        _model_classes()
    )


def test_the_check_finds_what_it_looks_for() -> None:
    source = (
        "if game == 'connect4':\n    pass\n"
        "if config.game != games.CHESS:\n    pass\n"
        "if name in ('chess', 'go'):\n    pass\n"
        "ok = isinstance(model, Connect4Model | dict)\n"
        "fine = isinstance(model, dict) and name == 'other' and game == config.game\n"
    )
    found = offences(source, "probe.py", {"Connect4Model"})
    assert found == [
        "probe.py:1: compares with a game's name",
        "probe.py:3: compares with a game's name",
        "probe.py:5: compares with a game's name",
        "probe.py:7: isinstance on Connect4Model",
    ]


def test_no_game_is_named_outside_its_own_modules() -> None:
    models = _model_classes()
    found = [
        line
        for path in _neutral_modules()
        for line in offences(path.read_text(), str(path.relative_to(SRC)), models)
    ]
    assert not found, "game names in game-neutral code:\n" + "\n".join(found)

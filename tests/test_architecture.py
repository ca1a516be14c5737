"""The layout rules of docs/architecture.md (its Layers), read from the source: imports
point downward only, no module imports itself back through others, no module is long."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "treestrap"

#: Layers, lowest first; a layer imports from its own rank and those below. Layers that
#: share a rank are siblings (the guide draws them side by side).
LAYERS: dict[str, int] = {
    "core": 0,
    "evaluation": 1,
    "search": 2,
    # Connect Four's compiled game, solver and features: beside search, on core.jit only
    "connect4": 2,
    # one registration per game (rules, models, inputs, records): on search, connect4 and
    # evaluation; every layer above asks it and nothing in it asks them
    "games": 3,
    "learn": 4,
    "engine": 4,
    "rating": 5,
    "reports": 5,
    # distillation: labels from a teacher engine's searches, a network fitted to them
    "distill": 5,
    "play": 6,
    "supervised": 7,
    "training": 8,
    "distributed": 9,
    "reproduce": 10,
    "bootstrap": 10,
    "commands": 11,
    "cli": 12,
    # ``treestrap --version``'s version and commit: the standard library alone
    "version": 0,
    # what an option of a run is (the rules' and the run's tables): the standard library alone
    "option": 0,
    # a provenance chain computed again and checked (every writer's flag, every reader's
    # audit): the standard library alone
    "provenance_audit": 0,
}
#: Plain helpers any layer may use (the package's docstring and version, text checks).
ANYWHERE = {"__init__", "textcheck"}
#: The longest a module may be: past this it holds more than one concept.
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path, name: str) -> set[str]:
    """The treestrap modules ``path`` imports, at its top or inside functions."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("treestrap"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            if not base.startswith("treestrap"):
                continue
            found.add(base)
            # ``from treestrap.x import y`` may name the module x.y
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, name) & modules.keys() - {name} for name, path in modules.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_module_has_a_layer() -> None:
    unplaced = {_layer(m) for m in _modules()} - LAYERS.keys() - ANYWHERE
    assert not unplaced, f"modules outside every layer: {sorted(unplaced)}"


def test_imports_point_downward() -> None:
    upward = []
    for module, imported in _graph().items():
        layer = _layer(module)
        if layer in ANYWHERE:
            continue
        for target in imported:
            other = _layer(target)
            if other not in ANYWHERE and LAYERS[other] > LAYERS[layer]:
                upward.append(f"{module} ({layer}) imports {target} ({other})")
    assert not upward, "\n".join(sorted(upward))


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, or None (depth-first search with colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` that re-exports its own modules is not a circle: drop
    the edges from a package to the modules inside it."""
    return {
        module: {t for t in targets if not t.startswith(module + ".")}
        for module, targets in graph.items()
    }


def test_no_import_circle() -> None:
    circle = _cycle(_without_package_inits(_graph()))
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_the_circle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("module", sorted(_modules()))
def test_no_module_is_long(module: str) -> None:
    lines = len(_modules()[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module}: {lines} lines (at most {MAX_LINES})"

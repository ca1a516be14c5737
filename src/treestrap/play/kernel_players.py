"""In-process players a small game gets without writing its own, and their specs:
``random``, ``perfect`` (exact minimax over the whole game through its contract, a
seeded choice among the best moves: for games of a few thousand positions) and
``PATH.npz[:depth=N]`` (the family's alpha-beta over one of its weight files), each
optionally as ``NAME=SPEC``. A game hands them to its
:class:`~treestrap.games.contract.TournamentPlay` through :class:`KernelPlayers`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from treestrap.games.contract import Game
from treestrap.play.contract_game import RandomMovePlayer
from treestrap.search.alphabeta import AlphaBetaSearch
from treestrap.search.plain_kernels import PlainSearchOptions

RANDOM, PERFECT = "random", "perfect"
FORMS = "random, perfect, PATH.npz[:depth=N], optionally as NAME=SPEC"
_SPEC = re.compile(r"(?:(?P<name>[\w.-]+)=)?(?P<base>[^:=]+?)(?::depth=(?P<depth>[1-9]\d*))?")


class KernelPlayerSpec(NamedTuple):
    name: str
    kind: str  # RANDOM, PERFECT or a weight file's path
    depth: int = 0


class PerfectPlayer:
    """Exact minimax over the whole game, every position's value remembered by key."""

    def __init__(self, game: Game, name: str) -> None:
        self.game, self.name, self.rng = game, name, random.Random(0)
        self.values: dict[int, float] = {}
        self.buffer = game.new_move_buffer()

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def value(self, pos: Any) -> float:
        """+1, 0, -1: the side to move's result with best play."""
        key = int(self.game.key(pos))
        if key not in self.values:
            ended, _ = self.game.terminal(pos, self.buffer)
            self.values[key] = ended if ended is not None else max(self.scores(pos).values())
        return self.values[key]

    def scores(self, pos: Any) -> dict[int, float]:
        """Each legal move's result for the side to move."""
        moves = self.buffer[: self.game.legal_moves(pos, self.buffer)].tolist()
        found = {}
        for move in moves:
            self.game.make_move(pos, move)
            found[move] = -self.value(pos)
            self.game.unmake_move(pos)
        return found

    def choose(self, pos: Any) -> int:
        scores = self.scores(self.game.copy_position(pos))
        return self.rng.choice([m for m, v in scores.items() if v == max(scores.values())])


class SearchPlayer:
    """The best move of the family's alpha-beta of ``depth`` plies over a weight file."""

    def __init__(self, game: Game, kernels: ModuleType, spec: KernelPlayerSpec) -> None:
        self.game, self.name, self.depth = game, spec.name, spec.depth
        self.ev = game.load_model(spec.kind).evaluator()
        self.search = AlphaBetaSearch(kernels, PlainSearchOptions(), 12)

    def new_game(self, seed: int) -> None:
        pass

    def choose(self, pos: Any) -> int:
        copy = self.game.copy_position(pos)
        return int(self.search.search(copy, self.ev, self.depth).best_move)


@dataclass(frozen=True)
class KernelPlayers:
    """A small game's players: its contract, its compiled kernels (the search family's
    ``game``), its title for errors and the depth a weight file's player searches when
    its spec does not say."""

    game: Game
    kernels: ModuleType
    title: str
    default_depth: int = 2

    def parse(self, text: str) -> KernelPlayerSpec:
        """One spec; ``ValueError`` for a form it is not, or a file that is no weight
        file of the game (before any game is played)."""
        found = _SPEC.fullmatch(text)
        kind = found["base"] if found else ""
        if found and kind in (RANDOM, PERFECT) and found["depth"] is None:
            return KernelPlayerSpec(found["name"] or kind, kind)
        if not (found and kind.endswith(".npz")):
            raise ValueError(f"unknown {self.title} player {text!r} ({FORMS})")
        if not Path(kind).is_file():
            raise ValueError(f"weight file not found: {kind}")
        self.game.load_model(kind)
        depth = int(found["depth"] or self.default_depth)
        return KernelPlayerSpec(found["name"] or f"{Path(kind).stem}-d{depth}", kind, depth)

    def parse_all(self, texts: list[str]) -> list[KernelPlayerSpec]:
        specs = [self.parse(t) for t in texts]
        if len({s.name for s in specs}) < len(specs):
            raise ValueError("a player name is given twice")
        return specs

    def make(self, specs: list[KernelPlayerSpec]) -> list[Any]:
        def one(spec: KernelPlayerSpec) -> Any:
            if spec.kind == RANDOM:
                return RandomMovePlayer(self.game, spec.name)
            if spec.kind == PERFECT:
                return PerfectPlayer(self.game, spec.name)
            return SearchPlayer(self.game, self.kernels, spec)

        return [one(s) for s in specs]

    @staticmethod
    def weights_player(name: str, path: str, tc: str) -> str:
        """A learning curve's player: a weight file at a fixed depth (``depth=N``)."""
        if not tc.startswith("depth=") or not tc[6:].isdigit() or ":" in path:
            raise ValueError(f"a curve of in-process players is at a fixed depth, not {tc!r}")
        return f"{name}={path}:{tc}"

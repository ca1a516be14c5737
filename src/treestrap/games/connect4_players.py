"""Connect Four player specs and the players they make, all in process.

==============================  ====================================================
``perfect``                     the exact solver: a best move (the highest score,
                                so the quickest win or the longest loss), ties
                                broken by a seeded random choice
``perfect:p=P``                 a random legal move with probability P, else perfect
``random``                      a uniformly random legal move
``hand-set[:depth=N]``          a search over the hand-written evaluation
``random-weights[:seed=S]...``  a search over small random weights (the random start)
``zero[:depth=N]``              a search over the shipped preset ``connect4-zero``
                                (``treestrap bootstrap --game connect4``'s best
                                file)
``ntuple[:depth=N]``            a search over the shipped preset ``connect4-ntuple``
                                (the n-tuple tables of ``treestrap bootstrap --game
                                connect4 --budget ntuple``): the default player
``PATH.npz[:depth=N]``          a search over a Connect Four weight file
==============================  ====================================================

A search player searches ``depth`` plies (default :data:`DEFAULT_DEPTH`) with the
training alpha-beta, or with ``time=S`` (instead of a depth) deepens the playing search
(:mod:`treestrap.connect4.play_search`) one ply at a time for a share of S seconds,
then proves its best move in the rest (:mod:`treestrap.connect4.proof`; ``proof=0``
leaves the whole time to the deepening); options join with ``:``
(``random-weights:seed=3:depth=2``, ``hand-set:time=0.1``).
``NAME=SPEC`` names a player; otherwise the name is made from the spec. Parsing checks
files and loads weight files, so a typo or a chess weight file fails before any game
starts.

A player (a :class:`~treestrap.games.contract.MovePlayer`) is made once per tournament
or measurement and told ``new_game`` with a seed before each game, so its random
choices are repeatable game by game while the solver's table and the search's stay
warm. Connect Four's tournaments take these specs
(:mod:`treestrap.games.connect4_tournament`).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from treestrap.connect4.board import (
    MAX_MOVES,
    Position,
    copy_position,
    legal_moves,
)
from treestrap.games.contract import MovePlayer

PERFECT, RANDOM, SEARCH = "perfect", "random", "search"
HAND_SET, RANDOM_WEIGHTS, ZERO, NTUPLE = "hand-set", "random-weights", "zero", "ntuple"
#: The shipped presets by player name.
SHIPPED = {ZERO: "connect4-zero", NTUPLE: "connect4-ntuple"}
#: The player a command measures when none is named: the strongest shipped preset.
DEFAULT_PLAYER = NTUPLE
#: Plies a search player looks ahead when its spec does not say.
DEFAULT_DEPTH = 4
MAX_DEPTH = 42
_NAMED = re.compile(r"^(?P<name>[^=:/\\\s]+)=(?P<spec>.+)$")
FORMS = (
    "perfect, perfect:p=P, random, ntuple[:depth=N|:time=S], zero[:depth=N|:time=S], "
    "hand-set[:depth=N|:time=S], "
    "random-weights[:seed=S][:depth=N|:time=S], PATH.npz[:depth=N|:time=S], "
    "a timed one with :proof=0 to play without proving, optionally as NAME=SPEC"
)
#: The longest time a move a search player may be given (seconds).
MAX_SECONDS = 60.0


@dataclass(frozen=True)
class Connect4PlayerSpec:
    """How to make one player; ``model`` is ``hand-set``, ``random-weights`` or a path."""

    name: str
    kind: str  # PERFECT, RANDOM or SEARCH
    p: float = 0.0  # perfect: the chance of a random move instead
    model: str = ""
    seed: int = 0  # random-weights: the weights' seed
    depth: int | None = None  # search: None takes DEFAULT_DEPTH (or the caller's)
    seconds: float | None = None  # search: a time a move instead of a depth
    proof: bool = True  # a timed search: prove the best move where its time allows

    @property
    def fixed(self) -> bool:
        """Whether the spec itself says how far the player searches."""
        return self.depth is not None or self.seconds is not None

    def with_depth(self, depth: int) -> Connect4PlayerSpec:
        """This search player at ``depth`` unless its spec fixed a depth or a time,
        named for it."""
        if self.kind != SEARCH or self.fixed:
            return self
        return replace(self, depth=depth, name=f"{self.name}-d{depth}")

    def with_time(self, seconds: float) -> Connect4PlayerSpec:
        """This search player at ``seconds`` a move unless its spec fixed a depth or a
        time, named for it."""
        if self.kind != SEARCH or self.fixed:
            return self
        return replace(self, seconds=seconds, name=f"{self.name}-t{seconds:g}s")


def _options(parts: list[str], allowed: tuple[str, ...], text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in allowed:
            wanted = ", ".join(f"{k}=..." for k in allowed) or "no options"
            raise ValueError(f"player {text!r}: unknown option {part!r} (expected {wanted})")
        if key in found:
            raise ValueError(f"player {text!r}: {key} given twice")
        found[key] = value
    return found


def _depth(value: str | None, text: str) -> int | None:
    if value is None:
        return None
    if not value.isdigit() or not 1 <= int(value) <= MAX_DEPTH:
        raise ValueError(f"player {text!r}: depth must be a whole number 1-{MAX_DEPTH}")
    return int(value)


def _seconds(value: str | None, text: str) -> float | None:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0.0 < seconds <= MAX_SECONDS:
        raise ValueError(f"player {text!r}: time must be seconds above 0, at most {MAX_SECONDS:g}")
    return seconds


def _probability(value: str | None, text: str) -> float:
    if value is None:
        return 0.0
    try:
        p = float(value)
    except ValueError:
        p = -1.0
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"player {text!r}: p must be a probability 0-1, got {value!r}")
    return p


def parse_connect4_player(text: str) -> Connect4PlayerSpec:
    """One spec string (see the module docstring); ``ValueError`` says what is wrong."""
    match = _NAMED.match(text.strip())
    name, spec = (match["name"], match["spec"]) if match else ("", text.strip())
    base, *parts = spec.split(":")
    if base == PERFECT:
        p = _probability(_options(parts, ("p",), text).get("p"), text)
        return Connect4PlayerSpec(name or (f"perfect-p{p:g}" if p else PERFECT), PERFECT, p=p)
    if base == RANDOM:
        _options(parts, (), text)
        return Connect4PlayerSpec(name or RANDOM, RANDOM)
    if base in (HAND_SET, RANDOM_WEIGHTS, *SHIPPED) or base.lower().endswith(".npz"):
        allowed = ("depth", "time", "proof")
        opts = _options(parts, ("seed", *allowed) if base == RANDOM_WEIGHTS else allowed, text)
        if "depth" in opts and "time" in opts:
            raise ValueError(f"player {text!r}: a depth or a time, not both")
        if opts.get("proof", "1") not in ("0", "1"):
            raise ValueError(f"player {text!r}: proof must be 0 or 1")
        proof = opts.get("proof", "1") == "1"
        if "depth" in opts and "proof" in opts:
            raise ValueError(f"player {text!r}: proof is for a timed player (time=S)")
        seed_text = opts.get("seed", "0")
        if not seed_text.isdigit():
            raise ValueError(f"player {text!r}: seed must be a whole number")
        seed = int(seed_text)
        auto = base if base != RANDOM_WEIGHTS or not seed else f"{base}-{seed}"
        if base.lower().endswith(".npz"):
            auto = Path(base).stem
        depth = _depth(opts.get("depth"), text)
        seconds = _seconds(opts.get("time"), text)
        if depth is not None:
            auto = f"{auto}-d{depth}"
        if seconds is not None:
            auto = f"{auto}-t{seconds:g}s"
        if not proof:
            auto = f"{auto}-noproof"
        found = Connect4PlayerSpec(
            name or auto, SEARCH, model=base, seed=seed, depth=depth, seconds=seconds, proof=proof
        )
        if base not in (HAND_SET, RANDOM_WEIGHTS, *SHIPPED):
            load_model(found)  # a missing file or a chess weight file fails now
        return found
    raise ValueError(f"unknown Connect Four player {text!r} (expected {FORMS})")


def parse_connect4_players(texts: list[str]) -> list[Connect4PlayerSpec]:
    """Every spec, with unique names (made-up ones numbered ``-2``, ``-3``... on a
    clash; explicit names must differ)."""
    specs = [parse_connect4_player(t) for t in texts]
    named = [_NAMED.match(t.strip()) is not None for t in texts]
    explicit = [s.name for s, n in zip(specs, named, strict=True) if n]
    if len(set(explicit)) < len(explicit):
        raise ValueError("a player name is given twice")
    taken = set(explicit)
    unique = []
    for spec, is_named in zip(specs, named, strict=True):
        if not is_named:
            name, n = spec.name, 1
            while name in taken:
                n += 1
                name = f"{spec.name}-{n}"
            spec = replace(spec, name=name)
        taken.add(spec.name)
        unique.append(spec)
    return unique


def load_model(spec: Connect4PlayerSpec) -> Any:
    """The Connect Four model of a search player; ``ValueError`` for a file that is
    missing or not a Connect Four weight file."""
    from treestrap.games import connect4_model as models

    if spec.model == HAND_SET:
        return models.hand_written_connect4_model()
    if spec.model == RANDOM_WEIGHTS:
        return models.random_connect4_model(spec.seed)
    if spec.model in SHIPPED:
        return models.shipped_connect4_model(SHIPPED[spec.model])
    if not Path(spec.model).is_file():
        raise ValueError(f"weight file not found: {spec.model}")
    try:
        return models.load_connect4_model(spec.model)
    except (OSError, KeyError) as exc:
        raise ValueError(f"{spec.model}: not a Connect Four weight file ({exc})") from None


def _legal(pos: Position) -> list[int]:
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    n = legal_moves(pos, buf)
    return sorted(int(c) for c in buf[:n])


class RandomPlayer:
    """A uniformly random legal move."""

    def __init__(self, name: str = RANDOM) -> None:
        self.name = name
        self.rng = random.Random(0)

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, pos: Position) -> int:
        return self.rng.choice(_legal(pos))


class PerfectPlayer:
    """The exact solver's best move, or with probability ``p`` a random legal one.

    ``random_moves`` and ``moves`` count both kinds since the player was made."""

    def __init__(self, name: str = PERFECT, p: float = 0.0, solver: Any = None) -> None:
        from treestrap.connect4.solver import Solver

        self.name = name
        self.p = p
        self.solver = solver if solver is not None else Solver()
        self.rng = random.Random(0)
        self.moves = 0
        self.random_moves = 0

    def new_game(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, pos: Position) -> int:
        self.moves += 1
        # Draw the coin first, so the random stream does not depend on the position.
        if self.p and self.rng.random() < self.p:
            self.random_moves += 1
            return self.rng.choice(_legal(pos))
        return self.rng.choice(self.solver.best_moves(pos))


class SearchPlayer:
    """The best move of a search over a model's evaluation: to a fixed depth, or with
    ``seconds`` deepening over one table kept through the game until they are spent,
    then (``proof``) proving the best move in the time left where the deepening has not
    (:mod:`treestrap.connect4.proof`)."""

    def __init__(
        self, name: str, model: Any, depth: int, seconds: float | None = None, proof: bool = True
    ) -> None:
        from treestrap.connect4.play_search import PlaySearch
        from treestrap.connect4.proof import Proof
        from treestrap.connect4.search import Connect4Search

        self.name = name
        self.evaluator = model.evaluator()
        self.depth = depth
        self.seconds = seconds
        # A fixed-depth player plays through the training alpha-beta; a timed one through
        # the playing search, its table kept through a game. Each makes only its own table.
        self.search = Connect4Search(tt_bits=18) if seconds is None else None
        self.play_search = PlaySearch(TIMED_TT_BITS) if seconds is not None else None
        self.proof = Proof() if seconds is not None and proof else None
        #: the depth each timed move reached, in order (a measurement reports them)
        self.timed_depths: list[int] = []
        #: timed moves whose best move a proof settled, and those it did not finish
        self.proven = 0
        self.unproven = 0
        #: nodes a second of the last timed move (0 before one), of the last proof
        self.rate = 0.0
        self.proof_rate = PROOF_RATE

    def new_game(self, seed: int) -> None:
        # Nothing to seed (the search is deterministic); a timed player's tables forget
        # the last game.
        if self.play_search is not None:
            self.play_search.clear()
        if self.proof is not None:
            self.proof.clear()

    def static_value(self, pos: Position) -> float:
        """The evaluation of ``pos`` for its side to move, no search."""
        from treestrap.connect4.evaluator import evaluate

        return float(evaluate(copy_position(pos), self.evaluator))

    def choose(self, pos: Position) -> int:
        if self.seconds is not None:
            return self._choose_in_time(pos, self.seconds)
        assert self.search is not None
        result = self.search.search(copy_position(pos), self.evaluator, self.depth)
        return int(result.best_move)

    def _choose_in_time(self, pos: Position, seconds: float) -> int:
        """Deepen for the whole time, or with a proof (from :data:`PROOF_FROM_DISCS`
        discs) for :data:`DEEPENING_SHARE` of it, then prove in the time left: a proven
        best move replaces the deepening's."""
        import time

        from treestrap.connect4.board import ST_PLY

        start = time.perf_counter()
        copy = copy_position(pos)
        proving = self.proof is not None and int(pos.st[ST_PLY]) >= PROOF_FROM_DISCS
        share = seconds * DEEPENING_SHARE if proving else seconds
        move, settled = self._deepen(copy, share)
        if not proving or settled:
            return move
        assert self.proof is not None  # proving says so
        spent = time.perf_counter() - start
        budget = int(self.proof_rate * (seconds - spent))
        started = time.perf_counter()
        found = self.proof.best_move(copy, budget, first=move)
        took = time.perf_counter() - started
        if took >= PROOF_RATE_SAMPLE:
            rate = self.proof.last_nodes / took
            self.proof_rate = min(max(rate, PROOF_RATE / 4), PROOF_RATE * 4)
        if found is None:
            self.unproven += 1
            return move
        self.proven += 1
        return found.move

    def _deepen(self, copy: Position, seconds: float) -> tuple[int, bool]:
        """Iterative deepening of the playing search (:mod:`treestrap.connect4.play_search`)
        over one table kept through the game: each next depth gets the nodes the time
        left allows at the rate so far (or the last move's, if faster), and a depth
        stopped by them is dropped. Stops at the end of the game, or at a proven win or
        loss once the depth covers the plies to it (no quicker win, no longer loss, is
        left unseen): the move is then settled, a best move for certain."""
        import time

        from treestrap.connect4.bits import CELLS
        from treestrap.connect4.board import ST_PLY
        from treestrap.connect4.play_search import plies_to_end

        assert self.play_search is not None
        start = time.perf_counter()
        ply = int(copy.st[ST_PLY])
        move, reached, nodes, settled = -1, 0, 0, False
        for depth in range(1, CELLS - ply + 1):
            budget = 0  # depth 1 always completes: a move in any time
            if depth > 1:
                spent = time.perf_counter() - start
                if spent >= seconds:
                    break
                rate = max(nodes / max(spent, 1e-6), self.rate)
                budget = max(1, int(rate * (seconds - spent)))
            result = self.play_search.search(copy, self.evaluator, depth, budget)
            if result.stopped:
                break
            move, reached, nodes = result.best_move, depth, nodes + result.nodes
            if result.nodes == 0 or depth >= plies_to_end(result.value, ply) > 0:
                settled = True
                break
        else:
            settled = True  # searched to the last disc
        spent = time.perf_counter() - start
        if spent >= TIMED_RATE_SAMPLE:
            self.rate = nodes / spent
        self.timed_depths.append(reached)
        return move, settled


#: Seconds of a timed move long enough for its nodes a second to guide the next move.
TIMED_RATE_SAMPLE = 0.1
#: A timed player's table: 2**20 entries (24 MiB), cleared at each new game.
TIMED_TT_BITS = 20
#: The share of a timed move's time the deepening gets when a proof may follow.
DEEPENING_SHARE = 0.2
#: The fewest discs on the board for a proof: with fewer, proofs take seconds (4.6 and
#: 5.4 s for two positions of 6 discs), so the deepening keeps the whole time.
PROOF_FROM_DISCS = 8
#: Proof nodes a second before a proof has measured its own (a little under the rate
#: of the exact search on the reference positions, so a first proof keeps its time).
PROOF_RATE = 8_000_000
#: A proof of at least this many seconds sets the proof rate (within 4 times the first).
PROOF_RATE_SAMPLE = 0.02


def make_player(spec: Connect4PlayerSpec, solver: Any = None) -> MovePlayer:
    """The player of a spec; perfect players may share one ``solver`` (its table holds
    exact facts, whoever asked)."""
    if spec.kind == PERFECT:
        return PerfectPlayer(spec.name, spec.p, solver)
    if spec.kind == RANDOM:
        return RandomPlayer(spec.name)
    return SearchPlayer(
        spec.name, load_model(spec), spec.depth or DEFAULT_DEPTH, spec.seconds, spec.proof
    )


def make_players(specs: list[Connect4PlayerSpec]) -> list[MovePlayer]:
    """The players of one tournament, the perfect ones sharing one solver."""
    solver = None
    if any(spec.kind == PERFECT for spec in specs):
        from treestrap.connect4.solver import Solver

        solver = Solver()
    return [make_player(spec, solver) for spec in specs]

"""What a Connect Four bootstrap run spends: its budgets, by name.

Round 0 is TreeStrap(alpha-beta) self-play from random linear weights at a fixed depth
(or, in the ``ntuple`` budgets, TD(lambda) self-play of an n-tuple evaluation from empty
tables); each later round plays self-play games at a deeper fixed depth (deep searches are cheap
in Connect Four), fits linear weights to them by logistic regression and gates them
with a fixed-depth match. ``smoke`` runs end to end in well under a minute once the
kernels are compiled (the tests use it); ``standard`` is a run of hours.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from treestrap.bootstrap.budget_json import RunBudget
from treestrap.distill.connect4_fit import Connect4FitSettings
from treestrap.training.connect4_ntuple_run import NTupleTD


@dataclass(frozen=True)
class Connect4SelfPlay:
    """How a round's self-play games are played."""

    #: the player's search depth at every move (plies)
    depth: int = 8
    games: int = 2000
    chunk: int = 100
    #: random plies after the game's own opening (2-4 plies, ``Game.opening``), each
    #: one after which the game goes on and the opponent cannot win at once
    extra_plies: int = 4
    seed: int = 0
    #: the search's transposition table: 2^tt_bits entries
    tt_bits: int = 18

    def chunks(self) -> int:
        return -(-self.games // self.chunk)


@dataclass(frozen=True)
class Connect4FitPlan(Connect4FitSettings):
    """The linear weights each round fits (:mod:`treestrap.distill.connect4_fit`'s
    settings), and what the fit reads."""

    #: rounds of data a fit reads: this round's and the rounds before it
    data_rounds: int = 3

    def settings(self) -> Connect4FitSettings:
        """The fit's own settings."""
        return Connect4FitSettings(
            **{f.name: getattr(self, f.name) for f in fields(Connect4FitSettings)}
        )


@dataclass(frozen=True)
class Connect4GatePlan:
    """The match a candidate must win: fixed-depth searches from random openings, each
    played with both colours, under a pentanomial SPRT."""

    depth: int = 4
    sprt: str = "elo0=0,elo1=20"
    max_games: int = 400
    opening_plies: int = 4


@dataclass(frozen=True)
class Connect4Budget(RunBudget):
    """Every setting of a Connect Four bootstrap run."""

    #: round 0's evaluation: "linear" (TreeStrap(alpha-beta) self-play at
    #: ``round0_depth``) or "ntuple:TxL" (TD(lambda) self-play one ply deep, ``round0_td``)
    round0_model: str = "linear"
    round0_td: NTupleTD = field(default_factory=NTupleTD)
    selfplay: Connect4SelfPlay = field(default_factory=Connect4SelfPlay)
    fit: Connect4FitPlan = field(default_factory=Connect4FitPlan)
    gate: Connect4GatePlan = field(default_factory=Connect4GatePlan)


CONNECT4_BUDGETS = {
    "smoke": Connect4Budget(
        name="smoke",
        round0_games=10,
        round0_depth=2,
        rounds=2,
        selfplay=Connect4SelfPlay(depth=4, games=16, chunk=8),
        fit=Connect4FitPlan(epochs=3, batch=256, lr=0.03),
        gate=Connect4GatePlan(depth=2, sprt="elo0=0,elo1=200", max_games=8),
    ),
    "standard": Connect4Budget(
        name="standard",
        round0_games=2000,
        round0_depth=4,
        rounds=10,
        selfplay=Connect4SelfPlay(depth=8, games=2000, chunk=100),
        fit=Connect4FitPlan(epochs=8),
        # A gate's game takes milliseconds: thousands of games let the test tell gains of
        # 20-40 Elo (400 games left +38 [+8, +70] undecided); 6-ply openings, of which
        # there are too many to repeat (deterministic players repeat a repeated opening).
        gate=Connect4GatePlan(depth=4, sprt="elo0=0,elo1=20", max_games=4000, opening_plies=6),
    ),
    # Round 0 only: 70 tuples of 8 cells learned by TD(lambda) from 6 million self-play
    # games (about a quarter of a CPU hour). The later rounds fit linear weights, not
    # tables, so there are none.
    "ntuple": Connect4Budget(
        name="ntuple",
        round0_games=6_000_000,
        round0_depth=1,
        rounds=0,
        round0_model="ntuple:70x8",
    ),
    # The mean of four such runs of the same tuples, each from its own 6 million games
    # (`--actors 2` learns two at a time).
    "ntuple-mean": Connect4Budget(
        name="ntuple-mean",
        round0_games=24_000_000,
        round0_depth=1,
        rounds=0,
        round0_model="ntuple:70x8",
        round0_td=NTupleTD(members=4),
    ),
    "ntuple-smoke": Connect4Budget(
        name="ntuple-smoke",
        round0_games=2000,
        round0_depth=1,
        rounds=0,
        round0_model="ntuple:8x4",
        round0_td=NTupleTD(chunk=500),
    ),
}

"""One training game of any game, through its contract: the learner searches and learns
at each of its moves, the opponent (or the learner again, in self-play) answers, and the
game ends by the rules, by length or, under a clock, on time.

The game's record (:mod:`treestrap.games.records`) keeps the position and writes the
game in the game's own format (chess: PGN; Connect Four: a line of ``games.txt``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from treestrap.games.records import GameRecord, RecordTags
from treestrap.learn.base import Step
from treestrap.play.loop import DRAWN, FIRST_WINS, SECOND_WINS
from treestrap.training.learner import Learner
from treestrap.training.opponents import Opponent


@dataclass
class GameSummary:
    number: int
    result: str  # from white's view
    learner_white: bool
    termination: str
    plies: int
    searches: int
    nodes: int
    seconds: float
    mean_abs_delta: float
    #: this process's CPU time for the game, learning included (the curves' time axis)
    cpu_seconds: float
    opening: str
    pgn: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def learner_score(self) -> float:
        if self.result == DRAWN:
            return 0.5
        return 1.0 if (self.result == FIRST_WINS) == self.learner_white else 0.0


def play_training_game(
    learner: Learner,
    opponent: Opponent | None,
    record: GameRecord,
    number: int,
    learner_white: bool,
) -> GameSummary:
    """Play game ``number`` on from ``record``'s position (its opening made), the
    learner moving first if ``learner_white``, against ``opponent`` or itself."""
    game = learner.game
    cfg = learner.config
    pos = record.pos
    steps: list[Step] = []
    step_at_ply: dict[int, Step] = {}
    clocks = [cfg.clock or 0.0, cfg.clock or 0.0]
    buffer = game.new_move_buffer()
    searches = nodes = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    learner.algorithm.stats.abs_delta.clear()
    termination, result = "", DRAWN
    while True:
        value, why = game.terminal(pos, buffer)
        if value is not None:
            termination = why
            if value != 0.0:  # the side to move's result
                first_won = (value > 0) == (game.side_to_move(pos) == 0)
                result = FIRST_WINS if first_won else SECOND_WINS
            break
        if record.plies() >= cfg.max_plies:
            termination = "adjudicated draw: maximum length"
            break
        side = int(game.side_to_move(pos))
        mine = opponent is None or (side == 0) == learner_white
        t0 = time.perf_counter()
        if mine:
            budget = cfg.nodes  # a fixed node budget, unless a clock sets one
            if cfg.clock is not None:
                think = clocks[side] / 30.0 + 0.75 * cfg.increment
                budget = int(max(1000.0, think * learner.nps))
            res, step = learner.search(pos, budget)
            learner.algorithm.observe(step)
            steps.append(step)
            step_at_ply[record.plies()] = step
            searches += 1
            nodes += res.nodes + res.qnodes
            move = res.best_move
        else:
            assert opponent is not None
            move = opponent.move(record.engine_view, pos)
        spent = time.perf_counter() - t0
        if mine and spent > 0:
            learner.nps = 0.8 * learner.nps + 0.2 * (res.nodes + res.qnodes) / spent
        if cfg.clock is not None and mine:
            clocks[side] += cfg.increment - spent
            if clocks[side] < 0:
                termination = "time forfeit"
                result = SECOND_WINS if side == 0 else FIRST_WINS
                break
        previous = step_at_ply.get(record.plies() - 1)
        if previous is not None:
            previous.actual_reply = move
        record.play(move)
    outcome = {FIRST_WINS: 1.0, SECOND_WINS: -1.0}.get(result, 0.0)
    learner.algorithm.end_game(steps, outcome)
    opponent_name = opponent.name if opponent is not None else "learner"
    tags = RecordTags(
        number=number,
        result=result,
        termination=termination,
        first="learner" if (opponent is None or learner_white) else opponent_name,
        second="learner" if (opponent is None or not learner_white) else opponent_name,
        event=f"treestrap training ({_event_model(cfg.algorithm, cfg.model)})",
    )
    return GameSummary(
        number=number,
        result=result,
        learner_white=learner_white,
        termination=termination,
        plies=record.plies(),
        searches=searches,
        nodes=nodes,
        seconds=time.perf_counter() - start,
        mean_abs_delta=learner.algorithm.stats.mean_abs_delta(),
        cpu_seconds=time.process_time() - cpu_start,
        opening=record.opening,
        pgn=record.text(tags),
    )


def _event_model(algorithm: str, model: str) -> str:
    """The Event tag's algorithm, with the network of a network run."""
    return algorithm if model == "linear" else f"{algorithm}, {model}"

"""One training game: the learner searches and learns at each of its moves, the
opponent (or the learner again, in self-play) answers, and the game ends by the rules,
by length or, under a clock, on time."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.pgn

from treestrap.core.makemove import make_move
from treestrap.core.move import move_to_uci
from treestrap.core.notation import parse_fen, parse_uci_move
from treestrap.core.position import ST_SIDE
from treestrap.core.status import STATUS_NAMES, game_status, new_move_buffer
from treestrap.learn.base import Step
from treestrap.play.openings import Opening
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
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if (self.result == "1-0") == self.learner_white else 0.0


def play_training_game(
    learner: Learner,
    opponent: Opponent | None,
    opening: Opening,
    number: int,
    learner_white: bool,
) -> GameSummary:
    cfg = learner.config
    board = opening.board()
    pos = parse_fen(opening.fen)
    for move in board.move_stack:
        make_move(pos, parse_uci_move(pos, move.uci()))
    steps: list[Step] = []
    step_at_ply: dict[int, Step] = {}
    clocks = [cfg.clock or 0.0, cfg.clock or 0.0]
    buffer = new_move_buffer()
    searches = nodes = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    learner.algorithm.stats.abs_delta.clear()
    termination, result = "", "1/2-1/2"
    while True:
        status = game_status(pos, buffer)
        if status != 0:
            termination = STATUS_NAMES[status]
            if status == 1:  # checkmate: the side to move lost
                result = "0-1" if board.turn == chess.WHITE else "1-0"
            break
        if board.ply() >= cfg.max_plies:
            termination = "adjudicated draw: maximum length"
            break
        side = int(pos.st[ST_SIDE])
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
            step_at_ply[board.ply()] = step
            searches += 1
            nodes += res.nodes + res.qnodes
            move = res.best_move
        else:
            assert opponent is not None
            move = opponent.move(board, pos)
        spent = time.perf_counter() - t0
        if mine and spent > 0:
            learner.nps = 0.8 * learner.nps + 0.2 * (res.nodes + res.qnodes) / spent
        if cfg.clock is not None and mine:
            clocks[side] += cfg.increment - spent
            if clocks[side] < 0:
                termination = "time forfeit"
                result = "0-1" if side == 0 else "1-0"
                break
        previous = step_at_ply.get(board.ply() - 1)
        if previous is not None:
            previous.actual_reply = move
        board.push(chess.Move.from_uci(move_to_uci(move)))
        make_move(pos, move)
    outcome = {"1-0": 1.0, "0-1": -1.0}.get(result, 0.0)
    learner.algorithm.end_game(steps, outcome)
    game = chess.pgn.Game.from_board(board)
    game.headers.update(
        {
            "Event": f"treestrap training ({_event_model(cfg.algorithm, cfg.model)})",
            "Round": str(number),
            "White": "learner" if (opponent is None or learner_white) else opponent.name,
            "Black": "learner" if (opponent is None or not learner_white) else opponent.name,
            "Result": result,
            "Opening": opening.name,
            "Termination": termination,
        }
    )
    return GameSummary(
        number=number,
        result=result,
        learner_white=learner_white,
        termination=termination,
        plies=board.ply(),
        searches=searches,
        nodes=nodes,
        seconds=time.perf_counter() - start,
        mean_abs_delta=learner.algorithm.stats.mean_abs_delta(),
        cpu_seconds=time.process_time() - cpu_start,
        opening=opening.name,
        pgn=str(game),
    )


def _event_model(algorithm: str, model: str) -> str:
    """The Event tag's algorithm, with the network of a network run."""
    return algorithm if model == "linear" else f"{algorithm}, {model}"

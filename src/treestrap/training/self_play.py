"""A training game of self-play through the game contract (:mod:`treestrap.games`):
the learner searches and learns at every move, and the game ends by its rules or its
length. Connect Four's games are played here; chess's keep their loop in
:mod:`treestrap.training.game` (PGN, opponents, clocks).

A game's record is one line of ``games.txt``: its number, its moves as the game writes
them, joined (Connect Four: columns 1-7, the opening's included), the result from the first
player's view, the opening's moves and why it ended, tab-separated.
"""

from __future__ import annotations

import time

from treestrap.games.contract import Game
from treestrap.learn.base import Step
from treestrap.training.game import GameSummary
from treestrap.training.learner import Learner


def play_self_play_game(learner: Learner, opening: list[int], number: int) -> GameSummary:
    """Play game ``number`` from the position after the ``opening`` moves against
    itself, learning as the run's rule does."""
    game: Game = learner.game
    cfg = learner.config
    pos = game.start_position()
    texts = []
    for move in opening:
        texts.append(game.move_text(pos, move))
        game.make_move(pos, move)
    first_ply, opening_text = len(opening), "".join(texts)
    steps: list[Step] = []
    moves: list[str] = []
    buffer = game.new_move_buffer()
    searches = nodes = 0
    start_time = time.perf_counter()
    cpu_start = time.process_time()
    learner.algorithm.stats.abs_delta.clear()
    termination, result = "", "1/2-1/2"
    previous: Step | None = None
    while True:
        value, why = game.terminal(pos, buffer)
        if value is not None:
            termination = why
            if value != 0.0:  # the side to move's result
                first_won = (value > 0) == (game.side_to_move(pos) == 0)
                result = "1-0" if first_won else "0-1"
            break
        if first_ply + len(moves) >= cfg.max_plies:
            termination = "adjudicated draw: maximum length"
            break
        res, step = learner.search(pos, cfg.nodes)
        learner.algorithm.observe(step)
        steps.append(step)
        searches += 1
        nodes += res.nodes + res.qnodes
        move = res.best_move
        if previous is not None:
            previous.actual_reply = move
        previous = step
        moves.append(game.move_text(pos, move))
        game.make_move(pos, move)
    outcome = {"1-0": 1.0, "0-1": -1.0}.get(result, 0.0)
    learner.algorithm.end_game(steps, outcome)
    played = opening_text + "".join(moves)
    record = "\t".join((str(number), played, result, opening_text, termination))
    return GameSummary(
        number=number,
        result=result,
        learner_white=True,
        termination=termination,
        plies=first_ply + len(moves),
        searches=searches,
        nodes=nodes,
        seconds=time.perf_counter() - start_time,
        mean_abs_delta=learner.algorithm.stats.mean_abs_delta(),
        cpu_seconds=time.process_time() - cpu_start,
        opening=opening_text,
        pgn=record,
    )

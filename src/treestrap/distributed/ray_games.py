"""Tournament games as Ray tasks: :func:`run_games_ray` has the shape of
:func:`treestrap.play.gamepool.run_games` (a :data:`~treestrap.play.gamepool.GameRunner`).

At most ``workers`` games are in flight. A game whose worker dies (killed, out of
memory, its node lost) or raises is tried again, up to the pool's ``MAX_ATTEMPTS``,
exactly as the local pool does; results come back to the calling process, which alone
writes them, in the order games end.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from treestrap.distributed.ray_support import ray_session
from treestrap.play.errors import PlayerFailed
from treestrap.play.game import GameRecord, GameSetup, play_game
from treestrap.play.gamepool import GameRunner, retry_game


def run_games_ray(
    setups: Mapping[int, GameSetup],
    workers: int,
    on_done: Callable[[int, GameRecord], None],
    on_problem: Callable[[str], None] = print,
    address: str | None = None,
) -> list[int]:
    """Play every game of ``setups`` as Ray tasks, ``workers`` at a time; returns the
    ids given up, in order."""
    waiting = sorted(setups)
    attempts = dict.fromkeys(waiting, 0)
    given_up: list[int] = []
    with ray_session(address) as ray:
        from ray.exceptions import RayError

        task = ray.remote(num_cpus=1, max_retries=0)(play_game)
        running: dict[Any, int] = {}
        try:
            while waiting or running:
                while waiting and len(running) < max(1, workers):
                    game_id = waiting.pop(0)
                    running[task.remote(setups[game_id])] = game_id
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    game_id = running.pop(ref)
                    try:
                        record = ray.get(ref)
                    except RayError as exc:  # the worker died, or the game raised
                        cause = getattr(exc, "cause", None)  # what the game raised
                        if isinstance(cause, PlayerFailed):
                            raise cause from None  # our own player's bug: no retry
                        reason = str(exc).strip().splitlines()[0] if str(exc) else ""
                        on_problem(f"game {game_id} failed: {type(exc).__name__}: {reason}")
                        retry_game(game_id, attempts, waiting, given_up, on_problem)
                        continue
                    on_done(game_id, record)
        finally:
            for ref in running:  # leaving on an error: the games in flight are lost
                ray.cancel(ref, force=True)
    return sorted(given_up)


def ray_runner(address: str | None = None) -> GameRunner:
    """:func:`run_games_ray` on the cluster at ``address`` (a local one if None)."""
    return functools.partial(run_games_ray, address=address)

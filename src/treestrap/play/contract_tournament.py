"""Tournaments of in-process players, for any game whose contract fills
:class:`~treestrap.games.contract.TournamentPlay` (Connect Four's): the game gives the
player specs and players, the seeded openings and the PGN record; the schedule and the
files are every tournament's.

The schedule (:mod:`treestrap.play.schedule`): ``games_per_pair / 2`` openings the game
draws from the seed, each played by every pair (round robin) or by the first player and
each other one (gauntlet) with colours reversed. Games go to ``RUN_DIR/results.sqlite``
(the config stored with ``"game": NAME``) and ``RUN_DIR/games.pgn`` as each ends
(:mod:`treestrap.play.tournament_store`), so ``treestrap rate`` reads them as it reads
an engine tournament's, and a killed run resumes.

Players are in process and cheap to make, so the games run one after another in this
process; the players (a solver's table, a search's) stay warm from game to game. They
are all ours: one that raises (or picks an illegal move) stops the tournament with
:class:`~treestrap.play.errors.PlayerFailed`, its traceback in ``RUN_DIR/error.txt``.

A match of two players may run under a pentanomial SPRT (``sprt``, as in engine
tournaments: :mod:`treestrap.play.sprt_match`): it stops as soon as the test decides,
and a resumed match counts its pairs from the stored games first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from treestrap.games.contract import Game, MovePlayer, TournamentPlay
from treestrap.games.records import RecordTags
from treestrap.games.registry import game_facts, get_game
from treestrap.play.contract_game import play_contract_game
from treestrap.play.errors import ERROR_FILE, PlayerFailed
from treestrap.play.results_db import StoredGame, now
from treestrap.play.schedule import ROUND_ROBIN, Pairing, check_schedule, schedule
from treestrap.play.sprt_match import check_sprt, resumed_watch
from treestrap.play.tournament_store import (
    GameRecorder,
    TournamentResult,
    check_unused,
    config_from_json,
    config_json,
    final_result,
    open_run,
    stored_config,
)

#: The termination stored for every finished game (none is adjudicated or forfeited).
NORMAL = "normal"


@dataclass
class ContractTournamentConfig:
    """Everything that defines a tournament of ``game``'s in-process players; stored as
    JSON (:meth:`of` fills in the game's defaults)."""

    players: list[str]  # the game's player specs
    game: str
    opening_plies: int
    format: str = ROUND_ROBIN
    games_per_pair: int = 2  # even: half as many openings, each with both colours
    seed: int = 1
    event: str = ""  # "": "treestrap GAME tournament"
    # A two-player match stops when this SPRT decides (treestrap.rating.gsprt's
    # ``elo0=..,elo1=..`` text); None plays every scheduled game.
    sprt: str | None = None

    def __post_init__(self) -> None:
        if not self.event:
            self.event = f"treestrap {self.game} tournament"

    @classmethod
    def of(
        cls, game: str, players: list[str], opening_plies: int | None = None, **options: Any
    ) -> ContractTournamentConfig:
        """A tournament of ``game``, with its default opening plies unless given (0:
        every game from the start position)."""
        plies = tournament_play(game).opening_plies if opening_plies is None else opening_plies
        return cls(players, game, plies, **options)

    def to_json(self) -> str:
        return config_json(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ContractTournamentConfig:
        """The config :meth:`to_json` wrote; ``ValueError`` if it is not one."""

        def prepare(data: dict[str, Any]) -> None:
            if not isinstance(data.get("game"), str):
                raise TypeError("no game named")

        return config_from_json(cls, text, "a tournament config of in-process players", prepare)

    def check(self, play: TournamentPlay) -> None:
        """``ValueError`` for a config that cannot make a tournament."""
        check_schedule(len(self.players), self.format, self.games_per_pair)
        if not 0 <= self.opening_plies <= play.max_opening_plies:
            raise ValueError(f"opening plies must be 0-{play.max_opening_plies}")
        check_sprt(self.sprt, len(self.players))


def tournament_play(game: str) -> TournamentPlay:
    """How ``game``'s in-process players meet; ``ValueError`` for a game without such
    tournaments (or an unknown one)."""
    facts = game_facts(game)
    play = None if facts.engine_tournament else get_game(game).tournament_play
    if play is None:
        raise ValueError(f"--game {game} has no tournaments of in-process players")
    return play


def load_contract_config(run_dir: str | Path) -> ContractTournamentConfig:
    """The config stored in ``run_dir``; ``ValueError`` if there is none."""
    return ContractTournamentConfig.from_json(stored_config(run_dir))


class Opening(NamedTuple):
    """A scheduled opening: its moves, and as the game writes them, joined."""

    text: str
    moves: list[int]


def opening_text(game: Game, moves: Sequence[int]) -> str:
    """The moves from the start as the game writes them, joined."""
    pos = game.start_position()
    texts = []
    for move in moves:
        texts.append(game.move_text(pos, move))
        game.make_move(pos, move)
    return "".join(texts)


def game_seed(seed: int, game_id: int) -> int:
    """The players' random seed for one game of a tournament."""
    return seed * 1_000_003 + game_id


def run_contract_tournament(
    config: ContractTournamentConfig,
    run_dir: str | Path,
    resume: bool = False,
    progress: bool = True,
) -> TournamentResult:
    """Play the tournament (with ``resume``: the games ``run_dir`` lacks) and return
    every stored game with the standings; ``ValueError`` before any game for a bad
    config or player, or a ``run_dir`` that does not fit ``resume``."""
    run_dir = Path(run_dir)
    play = tournament_play(config.game)
    game = get_game(config.game)
    config.check(play)
    specs = play.parse_players(config.players)
    drawn = play.openings(config.games_per_pair // 2, config.opening_plies, config.seed)
    openings = [Opening(opening_text(game, moves), moves) for moves in drawn]
    games = schedule(config.format, len(specs), openings)
    if resume:
        if load_contract_config(run_dir).to_json() != config.to_json():
            raise ValueError(f"the config differs from the one stored in {run_dir}")
    else:
        check_unused(run_dir)
    done = open_run(run_dir, config.to_json(), resume)
    watch = resumed_watch(config.sprt, specs[0].name, [str(g.round) for g in games], run_dir)
    players = play.make_players(specs)
    missing = [i for i in range(len(games)) if i not in done]
    if watch is not None and watch.decided:
        missing = []  # decided before it was stopped: nothing more to play
    names = [s.name for s in specs]
    recorder = GameRecorder(run_dir, names, len(games), len(done), progress, watch)
    (run_dir / ERROR_FILE).unlink(missing_ok=True)  # a failure before this run's is gone
    try:
        for game_id in missing:
            stored = _play_one(game, play, config, players, games[game_id], game_id, run_dir)
            if recorder.add(stored):
                break
    finally:
        recorder.close()
    return final_result(run_dir, names, len(games), progress, watch=watch)


def _play_one(
    game: Game,
    play: TournamentPlay,
    config: ContractTournamentConfig,
    players: list[MovePlayer],
    setup: Pairing[Opening],
    game_id: int,
    run_dir: Path,
) -> StoredGame:
    """One scheduled game, as stored; a player that raises is our bug:
    ``PlayerFailed``, its traceback saved in ``run_dir``."""
    first, second = players[setup.first], players[setup.second]
    opening = setup.opening
    seed = game_seed(config.seed, game_id)
    try:
        played = play_contract_game(game, first, second, opening.moves, seed)
    except Exception as exc:
        where = f"game {game_id}: {first.name} - {second.name}, opening {opening.text}"
        raise PlayerFailed.raised(f"in-process player raised ({where})", exc).saved_in(
            run_dir
        ) from None
    tags = RecordTags(
        setup.round,
        played.result,
        played.termination,
        first.name,
        second.name,
        config.event,
        played.cpu_seconds,
    )
    pgn = play.record(tags, played.opening, played.moves)
    row = (first.name, second.name, opening.text, played.result, NORMAL, played.plies)
    return StoredGame(game_id, setup.round, *row, pgn, now())

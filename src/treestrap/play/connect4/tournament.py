"""Connect Four tournaments, stored as chess tournaments are.

The schedule mirrors :mod:`treestrap.play.tournament`: ``games_per_pair / 2`` random
openings (:func:`~treestrap.play.connect4.game.random_openings`, from the seed), each
played by every pair (round robin) or by the first player and each other one
(gauntlet) with colours reversed. A game's id is its index in the schedule. Games go to
``RUN_DIR/results.sqlite`` (:class:`~treestrap.play.results_db.ResultsDB`; the config
is stored with ``"game": "connect4"``) and ``RUN_DIR/games.pgn`` as each ends, so
``treestrap rate`` reads them as it reads chess results, and a killed run resumes.

Players are in process and cheap to make, so the games run one after another in this
process; the players (a solver's table, a search's) stay warm from game to game. They
are all ours: one that raises (or picks an illegal column) stops the tournament with
:class:`~treestrap.play.errors.PlayerFailed`, its traceback in ``RUN_DIR/error.txt``.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from treestrap.games.registry import DEFAULT_GAME
from treestrap.play.connect4.game import Connect4Game, play_connect4_game, random_openings
from treestrap.play.connect4.players import Player, make_player, parse_connect4_players
from treestrap.play.errors import ERROR_FILE, PlayerFailed
from treestrap.play.results_db import ResultsDB, StoredGame, now
from treestrap.play.schedule import FORMATS, ROUND_ROBIN
from treestrap.play.tournament_store import PGN_NAME, TournamentResult
from treestrap.rating.results import DB_NAME
from treestrap.rating.standings import format_standings, standings

CONNECT4 = "connect4"
#: Random plies before a tournament game (few: the players decide the game).
DEFAULT_OPENING_PLIES = 4
MAX_OPENING_PLIES = 30


@dataclass
class Connect4TournamentConfig:
    """Everything that defines a Connect Four tournament; stored as JSON."""

    players: list[str]  # player specs (see treestrap.play.connect4.players)
    format: str = ROUND_ROBIN
    games_per_pair: int = 2  # even: half as many openings, each with both colours
    opening_plies: int = DEFAULT_OPENING_PLIES
    seed: int = 1
    event: str = "treestrap connect4 tournament"
    game: str = CONNECT4

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Connect4TournamentConfig:
        try:
            data = json.loads(text)
            if data.get("game") != CONNECT4:
                raise TypeError("not a Connect Four tournament")
            return cls(**data)
        except (TypeError, AttributeError, json.JSONDecodeError) as exc:
            raise ValueError(f"not a Connect Four tournament config ({exc})") from None

    def check(self) -> None:
        """``ValueError`` for a config that cannot make a tournament."""
        if len(self.players) < 2:
            raise ValueError("a tournament needs at least two players")
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r} (expected {' or '.join(FORMATS)})")
        if self.games_per_pair < 2 or self.games_per_pair % 2:
            raise ValueError(f"games per pair must be even and >= 2, got {self.games_per_pair}")
        if not 0 <= self.opening_plies <= MAX_OPENING_PLIES:
            raise ValueError(f"opening plies must be 0-{MAX_OPENING_PLIES}")


def stored_game_kind(run_dir: str | Path) -> str | None:
    """The game (``"connect4"``, ``"chess"``) of the tournament stored in ``run_dir`` (a run
    directory or its ``results.sqlite``), None where there is none to read."""
    path = Path(run_dir)
    path = path / DB_NAME if path.is_dir() else path
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        finally:
            conn.close()
        data = json.loads(row[0]) if row else {}
    except (sqlite3.Error, json.JSONDecodeError):
        return None
    if isinstance(data, dict) and isinstance(data.get("game"), str):
        return str(data["game"])
    return DEFAULT_GAME  # an engine tournament's config names no game


def load_connect4_config(run_dir: str | Path) -> Connect4TournamentConfig:
    try:
        with ResultsDB.open(run_dir) as db:
            return Connect4TournamentConfig.from_json(db.config_json())
    except FileNotFoundError:
        raise ValueError(f"no tournament in {run_dir} ({DB_NAME} not found)") from None
    except sqlite3.DatabaseError as exc:
        raise ValueError(f"{run_dir}: not a tournament database ({exc})") from None


@dataclass(frozen=True)
class ScheduledGame:
    first: int  # index into the players
    second: int
    opening: str
    round: int  # the opening's number, 1 up


def schedule(config: Connect4TournamentConfig, count: int) -> list[ScheduledGame]:
    """Every game of the tournament for ``count`` players, in id order."""
    if config.format == ROUND_ROBIN:
        pairs = [(i, j) for i in range(count) for j in range(i + 1, count)]
    else:
        pairs = [(0, j) for j in range(1, count)]
    openings = random_openings(config.games_per_pair // 2, config.opening_plies, config.seed)
    return [
        ScheduledGame(a, b, opening, number)
        for number, opening in enumerate(openings, start=1)
        for i, j in pairs
        for a, b in ((i, j), (j, i))
    ]


def game_seed(seed: int, game_id: int) -> int:
    """The players' random seed for one game of a tournament."""
    return seed * 1_000_003 + game_id


def run_connect4_tournament(
    config: Connect4TournamentConfig,
    run_dir: str | Path,
    resume: bool = False,
    progress: bool = True,
) -> TournamentResult:
    """Play the tournament (with ``resume``: the games ``run_dir`` lacks) and return
    every stored game with the standings; ``ValueError`` before any game for a bad
    config or player, or a ``run_dir`` that does not fit ``resume``."""
    run_dir = Path(run_dir)
    config.check()
    specs = parse_connect4_players(config.players)
    games = schedule(config, len(specs))
    names = [s.name for s in specs]
    if resume:
        if load_connect4_config(run_dir).to_json() != config.to_json():
            raise ValueError(f"the config differs from the one stored in {run_dir}")
        with ResultsDB.open(run_dir) as db:
            stored = db.games()
        done = {g.id for g in stored}
        # anew from the database: a game a kill kept from the file, or tore, comes back
        text = "".join(g.pgn + "\n\n" for g in sorted(stored, key=lambda g: g.id))
        (run_dir / PGN_NAME).write_text(text, encoding="utf-8")
    else:
        if (run_dir / DB_NAME).exists():
            raise ValueError(
                f"{run_dir} already holds a tournament ({DB_NAME}): finish it with "
                f"--resume {run_dir}, or choose another output directory"
            )
        ResultsDB.create(run_dir, config.to_json()).close()
        (run_dir / PGN_NAME).write_text("", encoding="utf-8")
        done = set()
    from treestrap.connect4.solver import Solver

    solver = Solver()  # one table for every perfect player
    players = [make_player(spec, solver) for spec in specs]
    missing = [i for i in range(len(games)) if i not in done]
    played = len(games) - len(missing)
    bar = tqdm(total=len(games), initial=played, unit="game", disable=not progress)
    (run_dir / ERROR_FILE).unlink(missing_ok=True)  # a failure before this run's is gone
    try:
        for game_id in missing:
            setup = games[game_id]
            game = _play_one(config, players, setup, game_id, run_dir)
            pgn = game.pgn(config.event, str(setup.round))
            row = (game.first, game.second, game.opening, game.result, "normal", game.plies)
            with ResultsDB.open(run_dir) as db:
                db.add_game(StoredGame(game_id, setup.round, *row, pgn, now()))
            with open(run_dir / PGN_NAME, "a", encoding="utf-8") as fh:
                fh.write(pgn + "\n\n")
            bar.set_postfix_str(f"{game.first}-{game.second} {game.result}", refresh=False)
            bar.update(1)
    finally:
        bar.close()
    with ResultsDB.open(run_dir) as db:
        stored_games = db.games()
    table = standings(names, ((g.white, g.black, g.result) for g in stored_games))
    result = TournamentResult(run_dir, names, stored_games, table, scheduled=len(games))
    if progress:
        tqdm.write(format_standings(table))
        tqdm.write(result.forfeits())
    return result


def _play_one(
    config: Connect4TournamentConfig,
    players: list[Player],
    setup: ScheduledGame,
    game_id: int,
    run_dir: Path,
) -> Connect4Game:
    """One scheduled game; a player that raises is our bug: ``PlayerFailed``, its
    traceback saved in ``run_dir``."""
    first, second = players[setup.first], players[setup.second]
    try:
        return play_connect4_game(first, second, setup.opening, game_seed(config.seed, game_id))
    except Exception as exc:
        where = f"game {game_id}: {first.name} - {second.name}, opening {setup.opening}"
        raise PlayerFailed.raised(f"in-process player raised ({where})", exc).saved_in(
            run_dir
        ) from None

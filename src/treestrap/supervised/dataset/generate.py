"""``treestrap dataset generate``: engine self-play games, as more PGN for ``dataset build``.

Serban trained on about 680,000 positions (Table 6.3); the collections we ship hold
fewer, so a user tops them up with engine games. Each game starts from a line of an
opening book plus ``random_plies`` random legal plies, so that games differ even with a
small book and a deterministic engine. Game ``i`` is fully decided by the seed and
``i`` (the opening and random plies are drawn from ``Random(f"{seed}:{i}")``, the engine
runs on one thread with its hash cleared per game and a node limit, not a clock), so the
file is the same however many jobs play it.

Resuming. Games are appended to the file one by one as they finish, each carrying its
number (``Round``) and the generator's settings (a ``Generator`` tag). Run again, the
command reads the file, cuts off a last game left incomplete by an interrupt, and plays
only the numbers below ``--games`` that are missing: no game is lost or played twice.
A file written with other settings is refused.

A game ends by the rules (mate, stalemate, dead position, or a draw either side can
claim), or at ``MAX_PLIES`` plies as an adjudicated draw; ``dataset build --rollout``
plays such a game on like a resigned one.
"""

from __future__ import annotations

import io
import os
import random
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn

from treestrap.play.game import BoardTable
from treestrap.play.loop import DRAWN, Ending, Turn, play_out
from treestrap.play.openings import Opening, load_openings
from treestrap.play.players import UCI, PlayerSpec, parse_player
from treestrap.supervised.dataset.errors import DatasetError
from treestrap.supervised.dataset.game import ends_with_result
from treestrap.supervised.dataset.parallel import run_parallel
from treestrap.supervised.dataset.source import split_games
from treestrap.supervised.dataset.stockfish import HASH_MB

EVENT = "treestrap dataset generate"
#: Longer games are adjudicated draws: engine games this long are shuffling in a
#: dead-drawn ending that the fifty-move rule would end anyway.
MAX_PLIES = 500


@dataclass(frozen=True)
class GenerateSettings:
    """What decides the games of a file; written into every game's Generator tag."""

    engine: str
    player: PlayerSpec
    nodes: int
    openings: str | None
    random_plies: int
    seed: int

    @classmethod
    def from_text(
        cls, engine: str, nodes: int, openings: str | None, random_plies: int, seed: int
    ) -> GenerateSettings:
        try:
            player = parse_player(engine)
        except ValueError as exc:
            raise DatasetError(f"--engine: {exc}") from None
        if player.kind != UCI:
            raise DatasetError(f"--engine: expected a UCI engine (stockfish[:ELO]), got {engine!r}")
        return cls(engine, player, nodes, openings, random_plies, seed)

    def tag(self) -> str:
        """The Generator tag; the openings file by name only, so a moved book resumes."""
        book = Path(self.openings).name if self.openings else "builtin"
        return (
            f"engine={self.engine} nodes={self.nodes} openings={book} "
            f"random_plies={self.random_plies} seed={self.seed}"
        )


@dataclass(frozen=True)
class GameTask:
    """One game to play: its number and its opening, already decided (picklable)."""

    index: int
    start_fen: str
    opening_uci: tuple[str, ...]
    opening_name: str
    settings: GenerateSettings


@dataclass
class GenerateReport:
    games_wanted: int
    games_before: int
    games_played: int  # by this run
    positions: int  # of the games of this run, start positions included
    seconds: float
    path: str

    def summary(self) -> str:
        lines = [f"{self.path}: {self.games_before + self.games_played:,} games"]
        if self.games_played:
            per_hour = self.games_played / self.seconds * 3600 if self.seconds > 0 else 0.0
            lines.append(
                f"this run: {self.games_played:,} games, {self.positions:,} positions "
                f"({self.positions / self.games_played:.1f} per game) in {self.seconds:.1f} s, "
                f"{per_hour:,.0f} games/hour"
            )
        else:
            lines.append(f"nothing to play: the file already holds {self.games_wanted:,} games")
        return "\n".join(lines)


def opening_for(index: int, book: list[Opening], settings: GenerateSettings) -> GameTask:
    """Game ``index``'s book line and random plies, from the seed and ``index`` alone."""
    rng = random.Random(f"{settings.seed}:{index}")
    opening = book[rng.randrange(len(book))]
    try:
        board = opening.board()
    except ValueError as exc:
        raise DatasetError(f"opening {opening.name!r} is not legal: {exc}") from None
    for _ in range(settings.random_plies):
        if board.is_game_over(claim_draw=True):
            break
        board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
    moves = tuple(m.uci() for m in board.move_stack)
    return GameTask(index, opening.fen, moves, opening.name, settings)


_engine: chess.engine.SimpleEngine | None = None


def _open_engine(player: PlayerSpec) -> chess.engine.SimpleEngine:
    global _engine
    if _engine is None:
        try:
            _engine = chess.engine.SimpleEngine.popen_uci(list(player.command))
            wanted: dict[str, Any] = {"Threads": 1, "Hash": HASH_MB, **dict(player.options)}
            _engine.configure({k: v for k, v in wanted.items() if k in _engine.options})
        except (chess.engine.EngineError, OSError) as exc:
            raise DatasetError(f"cannot start {player.name}: {exc}") from None
    return _engine


def _close_engine() -> None:
    global _engine
    if _engine is not None:
        _engine.quit()
        _engine = None


class _EngineMover:
    """Both sides of a generated game: the engine's move at the node limit."""

    def __init__(self, engine: chess.engine.SimpleEngine, limit: chess.engine.Limit, index: int):
        self.engine, self.limit, self.index = engine, limit, index

    def turn(self, table: BoardTable) -> Turn:
        return Turn(move=self.engine.play(table.board, self.limit, game=self.index).move)

    def refused(self, why: str) -> Ending:
        return Ending(DRAWN, "adjudication")  # no move (or no legal one): a draw, as at MAX_PLIES


def play_game(task: GameTask) -> tuple[int, str, int]:
    """``(index, PGN text, positions)`` of one self-play game."""
    engine = _open_engine(task.settings.player)
    board = chess.Board(task.start_fen)
    for uci in task.opening_uci:
        board.push_uci(uci)
    mover = _EngineMover(engine, chess.engine.Limit(nodes=task.settings.nodes), task.index)
    # The loop counts the moves made; the limit counts plies as the FEN numbers them.
    play_out(BoardTable(board), (mover, mover), MAX_PLIES - board.ply() + len(board.move_stack))
    outcome = board.outcome(claim_draw=True)
    game = chess.pgn.Game.from_board(board)
    name = task.settings.player.name
    game.headers["Event"] = EVENT
    game.headers["Site"] = "?"
    game.headers["Date"] = date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = str(task.index + 1)
    game.headers["White"] = game.headers["Black"] = name
    game.headers["Result"] = outcome.result() if outcome else "1/2-1/2"
    game.headers["Termination"] = "normal" if outcome else "adjudication"
    game.headers["Opening"] = task.opening_name
    game.headers["Generator"] = task.settings.tag()
    return task.index, str(game), len(board.move_stack) + 1


def read_done(path: Path, settings: GenerateSettings) -> tuple[set[int], int]:
    """The game numbers already in the file and the byte length of its complete part."""
    if not path.exists():
        return set(), 0
    done: set[int] = set()
    complete_bytes = offset = 0
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        for text in split_games(fh):
            offset += len(text.encode("utf-8", "surrogateescape"))
            if not ends_with_result(text):
                continue  # cut by an interrupt: dropped below unless games follow it
            headers = chess.pgn.read_headers(io.StringIO(text))
            tag = headers.get("Generator") if headers else None
            if tag != settings.tag():
                raise DatasetError(
                    f"{path} holds games generated with {tag or 'something else'!r}, this run "
                    f"asks for {settings.tag()!r}: use another --out"
                )
            round_ = (headers.get("Round") or "").strip() if headers else ""
            if not round_.isdigit():
                raise DatasetError(f"{path}: a game without its number (Round tag)")
            done.add(int(round_) - 1)
            complete_bytes = offset
    return done, complete_bytes


def generate_games(
    settings: GenerateSettings, games: int, out: str | Path, jobs: int, progress: bool = True
) -> GenerateReport:
    """Play the games missing from ``out`` up to ``games`` in all; see the module docstring."""
    path = Path(out)
    if path.exists() and not path.is_file():
        raise DatasetError(f"--out {path} is not a file")
    try:
        book = load_openings(settings.openings)
    except ValueError as exc:
        raise DatasetError(f"--openings: {exc}") from None
    done, complete_bytes = read_done(path, settings)
    if path.exists() and path.stat().st_size != complete_bytes:
        with open(path, "r+b") as fh:  # drop the game an interrupt cut short
            fh.truncate(complete_bytes)
    missing = [i for i in range(games) if i not in done]
    before = games - len(missing)
    started = time.perf_counter()
    from tqdm import tqdm

    bar = tqdm(total=games, initial=before, unit="game", desc="generate", disable=not progress)
    played = positions = 0
    tasks = (opening_for(i, book, settings) for i in missing)
    try:
        with open(path, "a", encoding="utf-8", newline="\n") as fh:
            for _index, pgn, n in run_parallel(play_game, tasks, jobs, at_exit=_close_engine):
                fh.write(pgn + "\n\n")
                fh.flush()
                os.fsync(fh.fileno())
                played += 1
                positions += n
                bar.update(1)
    finally:
        bar.close()
        _close_engine()
    return GenerateReport(
        games, before, played, positions, time.perf_counter() - started, str(path)
    )

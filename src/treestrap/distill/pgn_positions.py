"""Position records of PGN games: every position of each game from a fixed ply on,
scored by our engine's search to a fixed depth and labelled with the game's result
(``treestrap data import --from pgn``).

Positions where the game is over on the board are left out (there is nothing to
search), as are games without a decisive or drawn result (``*``) and games with an
illegal or unreadable move: those are counted, not guessed at. Each position is
searched on its own (a fresh position from its FEN, as ``distill label`` does), so a
score does not depend on the moves that led there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn
import numpy as np
from tqdm import tqdm

from treestrap.core.notation import parse_fen
from treestrap.distill.game_sources import ALL_FILTER, kept_games, player_filter
from treestrap.distill.labels import named_model
from treestrap.distill.position_file import RECORD, pack_position
from treestrap.distill.position_text import TextFileError, check_text, record_output
from treestrap.engine.engine import Engine
from treestrap.search.timeman import SearchLimits

#: The first ply kept: the opening's positions say little about a position's value.
FIRST_PLY = 8
#: White's result by the PGN result tag.
WHITE_RESULT = {"1-0": 1, "0-1": -1, "1/2-1/2": 0}


@dataclass
class PgnImport:
    """What an import took and left out."""

    games: int = 0
    positions: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def summary(self) -> str:
        left = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items()))
        return f"{self.positions:,} positions of {self.games:,} games" + (
            f" (left out: {left})" if left else ""
        )


def game_records(
    game: chess.pgn.Game, engine: Engine, depth: int, first_ply: int = FIRST_PLY
) -> np.ndarray:
    """The records of a game's positions from ply ``first_ply`` on (finished ones left
    out), scored by ``engine`` searched to ``depth``; the game must have a result."""
    white_result = WHITE_RESULT[game.headers.get("Result", "*")]
    board = game.board()
    records = []
    for ply, move in enumerate(game.mainline_moves(), start=1):
        board.push(move)
        if ply < first_ply or board.is_game_over(claim_draw=False):
            continue
        # Every en-passant square FEN knows: the position keeps the ones it can use.
        pos = parse_fen(board.fen(en_passant="fen"))
        score = engine.go(pos, SearchLimits(depth=depth)).score
        result = white_result if board.turn == chess.WHITE else -white_result
        records.append(pack_position(pos, score, result, board.ply()))
    return np.concatenate(records) if records else np.zeros(0, dtype=RECORD)


def import_pgn(
    paths: list[str | Path],
    out: str | Path,
    depth: int,
    weights: str = "learned",
    append: bool = False,
    progress: bool = False,
    first_ply: int = FIRST_PLY,
) -> PgnImport:
    """Records of the games of ``paths`` into the position file ``out``, scored by the
    search of ``weights`` (a preset or a weight file) to ``depth``. :class:`TextFileError`
    when there is no position to keep (``out`` then left as it was)."""
    engine = Engine(named_model(weights).evaluator(), hash_mb=16)
    header = {
        "source": "pgn",
        "files": [Path(p).name for p in paths],
        "depth": depth,
        "weights": weights,
        "first_ply": first_ply,
    }
    counts = PgnImport()
    bar = tqdm(unit="pos", desc="label", disable=not progress)
    with bar, record_output(out, header, append) as writer:
        for path in paths:
            check_text(path, "PGN text")
            moves = 0
            for game in kept_games(path, player_filter(ALL_FILTER)):
                moves += game.end().ply() - game.ply()
                if game.errors:
                    counts.skip("with a bad move")
                elif game.headers.get("Result", "*") not in WHITE_RESULT:
                    counts.skip("without a result")
                else:
                    records = game_records(game, engine, depth, first_ply)
                    writer.write(records)
                    counts.games += 1
                    counts.positions += len(records)
                    bar.update(len(records))
            if moves == 0:
                raise TextFileError(f"{path}: no PGN game with moves")
        if counts.positions == 0:  # raised inside: the output is dropped
            names = ", ".join(map(str, paths))
            raise TextFileError(
                f"no positions to import: no game of {names} has a result and a position "
                f"from ply {first_ply} on ({counts.summary()})"
            )
    return counts

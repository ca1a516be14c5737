"""The Connect Four position: make/unmake, the incremental hash, move strings, the
threat-aware move order (property tests over random games), and perft counts against
counts OpenSpiel gave (OpenSpiel's own lockstep games are in test_connect4_openspiel.py).
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treestrap.connect4.bits import CELLS, HEIGHT, WIDTH, has_four, lines, winning_cells
from treestrap.connect4.board import (
    DRAW,
    LOSS,
    MAX_MOVES,
    NOT_TERMINAL,
    RANK_BLOCKS,
    RANK_GIFT,
    RANK_SAFE,
    RANK_WINS,
    Position,
    board_text,
    copy_position,
    format_moves,
    legal_moves,
    make_move,
    move_ranks,
    new_position,
    order_moves,
    parse_moves,
    position_key,
    recompute_key,
    terminal_value,
    unmake_move,
)
from treestrap.connect4.perft import perft

#: Counted once with OpenSpiel 2.0.2's ``connect_four`` by the recursion of
#: ``openspiel_perft`` in test_connect4_openspiel.py (a terminal state counts 0 below
#: it), from the empty board and from positions given as move strings, depth 1 first.
#: Written here so these run without OpenSpiel; that test file recounts them live.
OPENSPIEL_PERFT: dict[str, list[int]] = {
    "": [7, 49, 343, 2401, 16807, 117649, 823536, 5673234],
    "4453": [7, 49, 343, 2317, 16218, 108118, 749587],
    "76122144": [7, 49, 343, 2401, 16804, 116997, 810055],
    # columns 1 and 2 full
    "1111112222223": [5, 25, 105, 525, 2305, 11324, 51010],
    "444444333333": [5, 25, 125, 505, 2525, 10345, 50370],
}


def grid(pos: Position) -> list[list[int]]:
    """The board as ``grid[col][row]``: 0 empty, 1 first player, 2 second (from the
    bitboards through plain Python, for comparisons)."""
    out = [[0] * HEIGHT for _ in range(WIDTH)]
    for player in range(2):
        b = int(pos.discs[player])
        for col in range(WIDTH):
            for row in range(HEIGHT):
                if b >> (col * 7 + row) & 1:
                    out[col][row] = player + 1
    return out


def slow_winner(g: list[list[int]]) -> int:
    """The player (1, 2) holding four in a line, 0 if none: a plain scan."""
    for cells in lines():
        owners = {g[b // 7][b % 7] for b in cells}
        if len(owners) == 1 and 0 not in owners:
            return owners.pop()
    return 0


def random_game(rng: random.Random, stop_early: float = 0.0) -> Position:
    """A game of random legal moves, to its end or (with probability ``stop_early``
    each move) stopped before."""
    pos = new_position()
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    while (n := legal_moves(pos, buf)) and rng.random() >= stop_early:
        make_move(pos, int(buf[rng.randrange(n)]))
    return pos


def arrays(pos: Position) -> dict[str, np.ndarray]:
    """Every array a move changes, copied. Rows of ``moves`` and ``keys`` past the
    current ply are scratch, so only the live part is kept."""
    played = int(pos.st[0])
    live = {"moves": played, "keys": played + 1}
    return {
        name: a[: live[name]].copy() if name in live else a.copy()
        for name, a in zip(pos._fields, pos, strict=True)
        if name != "zobrist"
    }


def test_make_unmake_restore_every_array_and_keep_the_hash() -> None:
    moves: list[int] = []  # the moves made and checked, per generated list of columns

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.integers(0, WIDTH - 1), max_size=60))
    def check(columns: list[int]) -> None:
        moves.append(_make_unmake(columns))

    check()
    # A full column or a won game skips moves: about 2,100 of them are played in all.
    assert len(moves) >= 300 and sum(moves) >= 1000, (len(moves), sum(moves))


def _make_unmake(columns: list[int]) -> int:
    """Play the legal ones of ``columns``, then unmake them; how many were played."""
    pos = new_position()
    before: list[dict[str, np.ndarray]] = []
    played = 0
    for col in columns:
        if terminal_value(pos) != NOT_TERMINAL or pos.heights[col] >= HEIGHT:
            continue
        before.append(arrays(pos))
        make_move(pos, col)
        played += 1
        assert position_key(pos) == recompute_key(pos)
        g = grid(pos)
        assert [sum(1 for c in column if c) for column in g] == list(pos.heights)
        assert (terminal_value(pos) == LOSS) == (slow_winner(g) != 0)
    # unmake back to the empty board; every array as it was before each move
    while before:
        unmake_move(pos)
        expected, got = before.pop(), arrays(pos)
        for name, want in expected.items():
            assert np.array_equal(got[name], want), name
    assert int(pos.discs[0]) == int(pos.discs[1]) == 0
    return played


def test_the_hash_tells_positions_apart_and_transpositions_alike() -> None:
    a, b = parse_moves("4455"), parse_moves("5544")
    assert position_key(a) == position_key(b)  # same discs, other order
    assert position_key(parse_moves("45")) != position_key(parse_moves("54"))
    rng = random.Random(7)
    seen: dict[int, str] = {}
    for _ in range(300):
        pos = random_game(rng, stop_early=0.1)
        key, diagram = int(position_key(pos)), board_text(pos)
        assert seen.setdefault(key, diagram) == diagram


def test_random_games_end_as_a_plain_scan_says() -> None:
    rng = random.Random(1)
    ends = {LOSS: 0, DRAW: 0}
    for _ in range(500):
        pos = random_game(rng)
        g = grid(pos)
        value = terminal_value(pos)
        ends[value] += 1
        if value == DRAW:
            assert pos.st[0] == CELLS and slow_winner(g) == 0
        else:
            # the last mover made four
            assert slow_winner(g) == 2 - (int(pos.st[0]) & 1)
    assert ends[LOSS] > 0 and ends[DRAW] >= 0


def test_move_strings_round_trip_and_bad_ones_are_refused() -> None:
    assert format_moves(parse_moves("4453")) == "4453"
    assert board_text(parse_moves("4453")).splitlines()[-2:] == ["...o...", "..oxx.."]
    with pytest.raises(ValueError, match="not a column"):
        parse_moves("48")
    with pytest.raises(ValueError, match="full"):
        parse_moves("1111111")
    with pytest.raises(ValueError, match="over"):
        parse_moves("12121212")  # four in column 1 after move 7, then an eighth


def test_order_moves_ranks_wins_blocks_safe_moves_and_gifts() -> None:
    pos = parse_moves("172737")  # x: columns 1, 2, 3 on the bottom; o: three in 7
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    ranks = np.zeros(WIDTH, dtype=np.int64)
    move_ranks(pos, ranks)
    assert ranks[3] == RANK_WINS  # x completes the bottom row
    assert ranks[6] == RANK_BLOCKS  # o's column
    n = order_moves(pos, buf)
    assert n == WIDTH and buf[0] == 3 and buf[1] == 6
    assert sorted(buf[:n]) == list(range(WIDTH))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_order_moves_agrees_with_a_plain_recount(seed: int) -> None:
    """Each column's rank recomputed by trying the move: a win, a block (the opponent
    would win there), a gift (the opponent then wins above it) or safe."""
    pos = random_game(random.Random(seed), stop_early=0.08)
    if terminal_value(pos) != NOT_TERMINAL:
        return
    ranks = np.zeros(WIDTH, dtype=np.int64)
    move_ranks(pos, ranks)
    mover = int(pos.st[0]) & 1
    for col in range(WIDTH):
        if pos.heights[col] >= HEIGHT:
            assert ranks[col] == -1
            continue
        cell = 1 << (col * 7 + int(pos.heights[col]))
        mine, theirs = int(pos.discs[mover]), int(pos.discs[1 - mover])
        if has_four(np.uint64(mine | cell)):
            want = RANK_WINS
        elif has_four(np.uint64(theirs | cell)):
            want = RANK_BLOCKS
        elif pos.heights[col] + 1 < HEIGHT and has_four(np.uint64(theirs | cell << 1)):
            want = RANK_GIFT
        else:
            want = RANK_SAFE
        assert ranks[col] == want, (format_moves(pos), col)
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    n = order_moves(pos, buf)
    assert [ranks[c] for c in buf[:n]] == sorted(ranks[c] for c in buf[:n])


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_winning_cells_are_the_cells_that_make_four(seed: int) -> None:
    pos = random_game(random.Random(seed), stop_early=0.05)
    mask = int(pos.discs[0] | pos.discs[1])
    for player in range(2):
        b = int(pos.discs[player])
        if has_four(np.uint64(b)):
            continue  # the winner of a finished game
        want = 0
        for col in range(WIDTH):
            for row in range(HEIGHT):
                cell = 1 << (col * 7 + row)
                if not mask & cell and has_four(np.uint64(b | cell)):
                    want |= cell
        assert int(winning_cells(np.uint64(b), np.uint64(mask))) == want


def test_copy_is_independent() -> None:
    pos = parse_moves("4453")
    twin = copy_position(pos)
    make_move(twin, 0)
    assert format_moves(pos) == "4453" and format_moves(twin) == "44531"


@pytest.mark.parametrize("moves", sorted(OPENSPIEL_PERFT))
def test_perft_matches_openspiel_counts(moves: str) -> None:
    pos = parse_moves(moves)
    counts = [perft(pos, depth) for depth in range(1, len(OPENSPIEL_PERFT[moves]) + 1)]
    assert counts == OPENSPIEL_PERFT[moves]
    assert format_moves(pos) == moves  # perft left the position as it found it


def _treestrap_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {name for name in found if name.startswith("treestrap.")}


#: What Connect Four may use of the layers below: the compile flags, the game-neutral
#: search-tree record, and the game-neutral search family (its searches, table, score
#: units, scratch, node recording and the kernels of a game without captures).
GAME_NEUTRAL = {
    "treestrap.core.jit",
    "treestrap.core.layer_sizes",
    "treestrap.core.compile_cache",  # where core/jit.py keeps the compiled kernels
    "treestrap.core.search_tree",
    *(
        f"treestrap.search.{name}"
        for name in (
            "alphabeta", "family", "full_tree", "node", "plain_kernels", "scratch", "tt",
            "value", "walk",
        )
    ),
}  # fmt: skip


def test_connect4_imports_nothing_of_chess() -> None:
    """Of the layers below, the package uses only what is game-neutral, and that imports
    nothing of chess either."""
    src = Path(__file__).resolve().parents[1] / "src"
    outside = set()
    for path in (src / "treestrap" / "connect4").glob("*.py"):
        outside |= {n for n in _treestrap_imports(path) if not n.startswith("treestrap.connect4")}
    assert outside <= GAME_NEUTRAL and "treestrap.core.jit" in outside
    for name in GAME_NEUTRAL:
        path = src / Path(*name.split(".")).with_suffix(".py")
        assert _treestrap_imports(path) <= GAME_NEUTRAL, name

"""FEN parsing: every broken field is rejected with a ValueError naming the field;
anything accepted formats back to a FEN that parses again and that python-chess reads
as the same position."""

from __future__ import annotations

import re
from collections import Counter

import chess
import chess.polyglot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treestrap.core.notation import STARTING_FEN, format_fen, parse_fen
from treestrap.core.perft import perft
from treestrap.core.position import compute_key, current_key

START = STARTING_FEN
START_PLACEMENT = START.split()[0]

BAD_FENS = [
    # field counts
    ("8/8/8/8/8/8/8/8 w", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "fields"),
    (START + " 7", "fields"),
    (START + " extra more", "fields"),
    ("", "fields"),
    ("   ", "fields"),
    # piece placement
    ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement.*ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement.*ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRP w KQkq - 0 1", "piece placement.*9"),
    ("rnbqkbnr/pppppppp/8/8/44p/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement.*9"),
    ("rnbqkbnr/pppppppp/8/8/7/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement.*7"),
    ("rnbqkbnr/pppppppp/8/8/9/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement"),
    ("rnbqkbnr/pppppppp/8/8/3x4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN0 w Qkq - 0 1", "piece placement"),
    ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "piece placement.*king"),
    ("4k3/8/8/8/8/8/8/8 w - - 0 1", "piece placement.*king"),
    ("8/8/8/8/8/8/8/4K3 w - - 0 1", "piece placement.*king"),
    ("3kk3/8/8/8/8/8/8/4K3 w - - 0 1", "piece placement.*king"),
    ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "piece placement.*pawn"),
    ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "piece placement.*pawn"),
    ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", "piece placement.*pawn"),
    ("p3k3/8/8/8/8/8/8/4K3 w - - 0 1", "piece placement.*pawn"),
    ("4k3/8/8/8/8/PPPPPPPP/P7/4K3 w - - 0 1", "piece placement.*pawns"),
    ("4k3/8/8/8/NNNNNNNN/PPPPPPPP/8/4K3 w - - 0 1", "piece placement.*16"),
    # side to move
    (START.replace(" w ", " x "), "side"),
    (START.replace(" w ", " W "), "side"),
    (START.replace(" w ", " white "), "side"),
    # castling
    ("r3k2r/8/8/8/8/8/8/R3K3 w K - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R2K3R w K - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R2K3R w Q - 0 1", "castling"),
    ("4k2r/8/8/8/8/8/8/R3K2R w q - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkr - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KK - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w KQkqK - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w X - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w AH - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w K- - 0 1", "castling"),
    ("r3k2r/8/8/8/8/8/8/R3K2R w -- - 0 1", "castling"),
    # en passant
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en-passant"),
    ("rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en-passant"),
    ("4k3/8/8/8/4P3/8/4P3/4K3 b - e3 0 1", "en-passant"),
    ("4k3/8/8/8/4P3/4N3/8/4K3 b - e3 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e9 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq z3 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e33 0 1", "en-passant"),
    ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq E3 0 1", "en-passant"),
    # clocks
    (START.replace(" 0 1", " x 1"), "halfmove"),
    (START.replace(" 0 1", " -1 1"), "halfmove"),
    (START.replace(" 0 1", " 1.5 1"), "halfmove"),
    (START.replace(" 0 1", " \u00b2 1"), "halfmove"),  # '²'.isdigit() is True
    (START.replace(" 0 1", " 0 0"), "fullmove"),
    (START.replace(" 0 1", " 0 \u00b3"), "fullmove"),
    (START.replace(" 0 1", " 0 -3"), "fullmove"),
    (START.replace(" 0 1", " 0 x"), "fullmove"),
    # the side not to move in check
    ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "side not to move.*in check"),
    ("4k3/8/8/8/8/3n4/8/4K3 b - - 0 1", "side not to move.*in check"),
    ("4k3/8/8/8/Q7/8/8/4K3 w - - 0 1", "side not to move.*in check"),
]


@pytest.mark.parametrize(
    ("fen", "field"),
    BAD_FENS,
    ids=[f"{i:02d}-{f.split('.')[0].replace(' ', '-')}" for i, (_, f) in enumerate(BAD_FENS)],
)
def test_bad_fen_names_the_field(fen: str, field: str) -> None:
    with pytest.raises(ValueError, match=f"(?i){field}"):
        parse_fen(fen)


@pytest.mark.parametrize("value", [None, 42, b"8/8/8/8/8/8/8/8 w - - 0 1", [START], 1.5])
def test_non_string_is_rejected(value: object) -> None:
    with pytest.raises(ValueError, match="string"):
        parse_fen(value)  # type: ignore[arg-type]


GOOD_FENS = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 12 40",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    # two bishops checking along one diagonal (perftsuite line 51): accepted
    "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    # double check by knight and rook
    "4k3/8/3N4/8/8/8/8/4R1K1 b - - 0 1",
    # clocks far from the start
    "8/8/8/4k3/8/8/8/R3K3 w Q - 150 999",
]


@pytest.mark.parametrize("fen", GOOD_FENS)
def test_good_fen_round_trips(fen: str) -> None:
    pos = parse_fen(fen)
    board = chess.Board(fen)
    assert format_fen(pos) == fen == board.fen()
    assert current_key(pos) == compute_key(pos) == chess.polyglot.zobrist_hash(board)
    assert perft(pos, 1) == board.legal_moves.count()


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", START),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7", START.replace(" 0 1", " 7 1")),
        ("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w\tKQkq  -  0 1\n", START),
        # an en-passant square with no pawn beside the pushed one is accepted, not written
        ("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", None),
        # en passant illegal (the pawn is pinned along the rank): not written either
        ("8/8/8/KPp4r/8/8/8/7k w - c6 0 2", None),
    ],
)
def test_short_and_unusual_fens(fen: str, expected: str | None) -> None:
    pos = parse_fen(fen)
    board = chess.Board(fen)
    assert format_fen(pos) == (expected or board.fen())
    assert format_fen(pos) == board.fen()
    assert current_key(pos) == chess.polyglot.zobrist_hash(board)


def test_en_passant_written_only_when_legal() -> None:
    legal = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    assert format_fen(parse_fen(legal)).split()[3] == "f6"
    pinned = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2"
    assert format_fen(parse_fen(pinned)).split()[3] == "-"


# --- fuzzing ---------------------------------------------------------------------

FEN_ALPHABET = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0123456789x\t."

SEEDS = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
]


def _expand(placement: str) -> list[str] | None:
    squares: list[str] = []
    for rank in placement.split("/"):
        for ch in rank:
            squares.extend("." * int(ch) if ch.isdigit() else ch)
    return squares if len(squares) == 64 and placement.count("/") == 7 else None


def _compress(squares: list[str]) -> str:
    ranks = []
    for r in range(8):
        text, empty = "", 0
        for ch in squares[8 * r : 8 * r + 8]:
            if ch == ".":
                empty += 1
                continue
            text += (str(empty) if empty else "") + ch
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


@st.composite
def mutated_fens(draw: st.DrawFn) -> str:
    """A valid FEN with a few random edits: to characters (mostly breaking it), to whole
    fields, or to squares of the board (often giving another sound position)."""
    text = draw(st.sampled_from(SEEDS))
    ops = ["char", "char", "field", "square", "square", "square", "castling", "ep"]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(ops))
        fields = text.split(" ")
        if op == "char":
            i = draw(st.integers(0, max(len(text) - 1, 0)))
            ch = draw(st.sampled_from(FEN_ALPHABET))
            kind = draw(st.sampled_from(["replace", "insert", "delete"]))
            keep = i + (kind == "insert")
            text = text[:i] + ("" if kind == "delete" else ch) + text[keep:]
        elif op == "field" and len(fields) > 1:
            i = draw(st.integers(0, len(fields) - 1))
            j = draw(st.integers(0, len(fields) - 1))
            if draw(st.booleans()):
                fields[i], fields[j] = fields[j], fields[i]
            else:
                del fields[i]
            text = " ".join(fields)
        elif op == "square" and (squares := _expand(fields[0])) is not None:
            i = draw(st.integers(0, 63))
            if draw(st.booleans()):
                j = draw(st.integers(0, 63))
                squares[i], squares[j] = squares[j], squares[i]
            else:
                squares[i] = draw(st.sampled_from(".pnbrqkPNBRQ"))
            text = " ".join([_compress(squares), *fields[1:]])
        elif op == "castling" and len(fields) > 2:
            fields[2] = draw(st.sampled_from(["-", "K", "Q", "k", "q", "KQ", "kq", "KQkq", "Qk"]))
            text = " ".join(fields)
        elif op == "ep" and len(fields) > 3:
            fields[3] = draw(st.sampled_from(["-", "a3", "e3", "h3", "a6", "d6", "f6", "e4"]))
            text = " ".join(fields)
    return text


@st.composite
def fields_of_random_text(draw: st.DrawFn) -> str:
    """Six fields, each a valid FEN's own or random text without spaces: unlike whole
    random text (almost always the wrong number of fields) it reaches every field's
    checks, and sometimes gives a FEN that is accepted."""
    fields = draw(st.sampled_from(SEEDS)).split(" ")
    for i in range(len(fields)):
        if draw(st.integers(0, 2)) == 0:
            fields[i] = "".join(draw(st.text(min_size=1, max_size=12)).split()) or "-"
    return " ".join(fields)


def _check_parse(text: str) -> str:
    """Parse ``text``; what was accepted must round-trip and be python-chess's position,
    what was refused a one-line ValueError. Returns "accepted" or the refusal's kind
    (its message up to the colon, numbers as N)."""
    try:
        pos = parse_fen(text)
    except ValueError as exc:
        message = str(exc)
        assert message.startswith("FEN") and "\n" not in message, message
        return re.sub(r"\d+", "N", message.split(":")[0])
    out = format_fen(pos)
    again = parse_fen(out)
    assert format_fen(again) == out
    assert current_key(again) == current_key(pos) == compute_key(pos)
    # python-chess reads what we accepted as the same position.
    board = chess.Board(text)
    assert board.fen() == out
    assert chess.polyglot.zobrist_hash(board) == current_key(pos)
    return "accepted"


def _fuzz(texts: st.SearchStrategy[str], examples: int) -> Counter[str]:
    """``_check_parse`` on ``examples`` generated texts (the same each run): how many
    were accepted, and refused for each reason."""
    outcomes: Counter[str] = Counter()

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None)
    @given(texts)
    def check(text: str) -> None:
        outcomes[_check_parse(text)] += 1

    check()
    return outcomes


def test_fuzz_random_text() -> None:
    # Garbage is refused with a one-line ValueError (nearly always for its field count).
    outcomes = _fuzz(st.text(max_size=120), 300)
    assert sum(outcomes.values()) >= 300
    assert outcomes["accepted"] == 0, outcomes


def test_fuzz_random_text_in_each_field() -> None:
    outcomes = _fuzz(fields_of_random_text(), 400)
    assert sum(outcomes.values()) >= 400
    assert outcomes["accepted"] >= 20, outcomes  # round trips checked (44)
    # refused by the checks of each field, not just the first
    for field in ("piece placement", "side to move", "castling", "en-passant"):
        assert sum(n for kind, n in outcomes.items() if field in kind) >= 5, (field, outcomes)


def test_fuzz_fen_alphabet() -> None:
    # Four to six fields of FEN characters (a random string of them rarely has 4 or 6).
    letters = FEN_ALPHABET.replace(" ", "").replace("\t", "")
    field = st.text(alphabet=letters, min_size=1, max_size=20)
    outcomes = _fuzz(st.lists(field, min_size=4, max_size=6).map(" ".join), 300)
    # each reached the placement's checks (a random placement never passes them)
    assert outcomes["FEN piece placement"] >= 300, outcomes


def test_fuzz_mutated_fens() -> None:
    outcomes = _fuzz(mutated_fens(), 600)
    assert sum(outcomes.values()) >= 600
    assert outcomes["accepted"] >= 60, outcomes  # round trips checked (122)
    assert len(outcomes) >= 6, outcomes  # refused by several fields' checks

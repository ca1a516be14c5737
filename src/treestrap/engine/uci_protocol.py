"""The text of the Universal Chess Interface: reading ``go`` and ``position``
commands, writing ``info`` lines. Plain Python, no search: the session
(:mod:`treestrap.engine.uci`) does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from treestrap.core.makemove import make_move
from treestrap.core.notation import STARTING_FEN, parse_fen, parse_uci_move
from treestrap.core.position import MAX_HISTORY, Position
from treestrap.engine.engine import SearchInfo
from treestrap.search.timeman import SearchLimits
from treestrap.search.value import MATE, MATE_BOUND, MAX_PLY

#: Plies a ``position ... moves`` list may hold: the search needs room on top of it.
MAX_GAME_PLIES = MAX_HISTORY - 2 * MAX_PLY
#: ``go mate N`` without another limit searches at most this many plies beyond 2N.
MATE_EXTRA_PLIES = 4
#: ``go`` times above this many milliseconds (about 30 years) are read as this: a
#: float holds it, and no game lasts longer.
MAX_GO_MS = 10**12

_GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes")
_GO_KEYWORDS = {*_GO_INT_PARAMS, "mate", "infinite", "ponder", "searchmoves"}


class UciError(ValueError):
    """A command the engine cannot carry out; reported as ``info string error``."""


@dataclass
class GoCommand:
    limits: SearchLimits
    ponder: bool = False
    mate: int | None = None  # stop once a mate in at most this many moves is found
    searchmoves: tuple[str, ...] = ()


def _int_arg(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UciError(f"go {name}: expected an integer, got {text!r}") from None


def parse_go(args: list[str]) -> GoCommand:
    """The limits of ``go`` (its arguments after ``go``); UCI milliseconds become
    seconds. ``UciError`` on a malformed command."""
    limits = SearchLimits()
    cmd = GoCommand(limits)
    i = 0
    while i < len(args):
        tok = args[i]
        if tok in _GO_INT_PARAMS or tok == "mate":
            if i + 1 >= len(args):
                raise UciError(f"go {tok}: missing value")
            value = _int_arg(tok, args[i + 1])
            i += 2
            if tok in ("wtime", "btime", "winc", "binc", "movetime"):
                ms = min(max(0, value), MAX_GO_MS)  # GUIs send < 0 when late
                setattr(limits, tok, ms / 1000.0)
            elif tok == "movestogo":
                limits.movestogo = value if value > 0 else None
            elif value < 1:
                raise UciError(f"go {tok}: must be >= 1, got {value}")
            elif tok == "depth":
                limits.depth = min(value, MAX_PLY - 1)
            elif tok == "nodes":
                limits.nodes = value
            else:
                cmd.mate = limits.mate = value
        elif tok == "infinite":
            limits.infinite = True
            i += 1
        elif tok == "ponder":
            cmd.ponder = True
            i += 1
        elif tok == "searchmoves":
            i += 1
            moves = []
            while i < len(args) and args[i] not in _GO_KEYWORDS:
                moves.append(args[i])
                i += 1
            cmd.searchmoves = tuple(moves)
        else:
            raise UciError(f"go: unknown parameter {tok!r}")
    if cmd.mate is not None and limits.depth is None and not limits.infinite:
        limits.depth = min(2 * cmd.mate + MATE_EXTRA_PLIES, MAX_PLY - 1)
    return cmd


def parse_position(args: list[str]) -> Position:
    """The position of ``position startpos|fen <FEN> [moves ...]`` (arguments after
    ``position``); ``ValueError`` on a malformed FEN or an illegal move."""
    if not args:
        raise UciError("position: expected 'startpos' or 'fen <FEN>'")
    if args[0] == "startpos":
        fen, rest = STARTING_FEN, args[1:]
    elif args[0] == "fen":
        end = args.index("moves") if "moves" in args else len(args)
        fen, rest = " ".join(args[1:end]), args[end:]
        if not fen:
            raise UciError("position fen: missing FEN")
    else:
        raise UciError(f"position: expected 'startpos' or 'fen', got {args[0]!r}")
    if rest and rest[0] != "moves":
        raise UciError(f"position: unexpected {rest[0]!r} (expected 'moves')")
    moves = rest[1:]
    if len(moves) > MAX_GAME_PLIES:
        raise UciError(f"position: at most {MAX_GAME_PLIES} moves are supported")
    try:
        pos = parse_fen(fen)
    except ValueError as exc:
        raise UciError(f"position: {exc}") from None
    for i, text in enumerate(moves):
        try:
            make_move(pos, parse_uci_move(pos, text))
        except ValueError as exc:
            raise UciError(f"position: move {i + 1} ({text}): {exc}") from None
    return pos


def format_score(v: float) -> str:
    """``cp X`` or ``mate N`` (N in moves, negative when the side to move is mated)."""
    if abs(v) >= MATE_BOUND:
        moves = (round(MATE - abs(v)) + 1) // 2
        return f"mate {moves if v > 0 else -moves}"
    return f"cp {round(v)}"


def mate_moves(v: float) -> int | None:
    """Moves to the mate that ``v`` announces for the side to move, else None."""
    if v >= MATE_BOUND:
        return (round(MATE - v) + 1) // 2
    return None


def format_info(info: SearchInfo) -> str:
    """The ``info`` line of one searched line (with ``multipv i`` under MultiPV)."""
    rank = f"multipv {info.multipv} " if info.multipv is not None else ""
    line = (
        f"info depth {info.depth} seldepth {max(info.seldepth, info.depth)} {rank}"
        f"score {format_score(info.score)} nodes {info.nodes} nps {info.nps} "
        f"time {int(info.time * 1000)}"
    )
    if info.pv:
        line += " pv " + " ".join(info.pv)
    return line

"""``treestrap data export | import``: binary position files as text lines, and text
lines or PGN games as position files.

The text forms (:mod:`treestrap.distill.position_text`): ``text`` lines ``FEN | score |
result`` with the score in centipawns and the result (1.0 / 0.5 / 0.0) both from
white's point of view, the plain-text form NNUE trainers such as bullet read; ``epd``
lines with ``ce`` (centipawns for the side to move) and ``c0`` (the PGN result), plus
``hmvc`` and ``fmvn`` for the clocks. Building the parser imports nothing heavy;
option values are checked by the handlers, so that every bad input ends as one
``error: ...`` line and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import int_at_least

_TEXT_HELP = (
    "text: 'FEN | score | result', the score in centipawns and the result (1.0 white "
    "won, 0.5 draw, 0.0 black won) both from white's point of view (bullet's plain-text "
    "form); epd: 'BOARD SIDE CASTLING EP ce SCORE; c0 \"1-0\"; hmvc H; fmvn F;', ce "
    "from the side to move's point of view"
)


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "data",
        help="position files to text (FEN | score | result, EPD) and back, or from PGN",
        description="Convert binary position files (.tspos) to text lines other trainers "
        "read (export), and text lines or PGN games to position files (import).",
    )
    steps = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    exp = steps.add_parser(
        "export",
        help="position files -> text lines",
        description="Write every record of the position files as one line of text, in "
        f"file order. Forms: {_TEXT_HELP}.",
    )
    exp.add_argument("files", nargs="+", metavar="FILE.tspos", help="position files")
    exp.add_argument(
        "--out", required=True, metavar="OUT", help="text file to write (-: standard output)"
    )
    exp.add_argument(
        "--format",
        choices=("text", "epd"),
        help="the line form (default: epd for an OUT named *.epd, else text)",
    )
    exp.add_argument("--no-progress", action="store_true", help="no progress bar")
    exp.set_defaults(func=run_export)

    imp = steps.add_parser(
        "import",
        help="text lines or PGN games -> a position file",
        description="Read text lines (either form, told apart line by line) or PGN games "
        "into a position file. A game's positions from ply 8 on are scored by our "
        f"engine's search to --label-depth, with the game's result. Forms: {_TEXT_HELP}.",
    )
    imp.add_argument("files", nargs="+", metavar="FILE", help="text files or PGN files")
    imp.add_argument("--out", required=True, metavar="OUT.tspos", help="position file")
    imp.add_argument(
        "--from",
        dest="source",
        choices=("text", "pgn"),
        help="what the files hold (default: pgn when every file is named *.pgn, else text)",
    )
    imp.add_argument(
        "--format",
        choices=("auto", "text", "epd"),
        default="auto",
        help="the form of text lines (default auto: each line's own)",
    )
    imp.add_argument("--label-depth", type=_positive_int, metavar="N", help="PGN: the search depth")
    imp.add_argument(
        "--weights",
        default="learned",
        metavar="PRESET_OR_FILE",
        help="PGN: the evaluation that searches (default learned)",
    )
    imp.add_argument("--append", action="store_true", help="add the records to an existing OUT")
    imp.add_argument("--no-progress", action="store_true", help="no progress bar")
    imp.set_defaults(func=run_import)


def _error(message: object) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _speed(count: int, start: float) -> str:
    seconds = max(time.perf_counter() - start, 1e-9)
    return f"{seconds:.1f} s, {count / seconds:,.0f} positions/s"


def run_export(args: argparse.Namespace) -> int:
    from treestrap.distill.position_text import export_positions

    form = args.format or ("epd" if args.out.lower().endswith(".epd") else "text")
    start = time.perf_counter()
    try:
        count = export_positions(args.files, args.out, form, progress=not args.no_progress)
    except ValueError as exc:  # not a position file, or a damaged record in one
        return _error(exc)
    # With the lines on standard output, the summary goes beside them, not among them.
    summary = sys.stderr if args.out == "-" else sys.stdout
    print(
        f"wrote {count:,} positions ({form}) to {args.out} ({_speed(count, start)})", file=summary
    )
    return 0


def run_import(args: argparse.Namespace) -> int:
    from treestrap.distill.position_file import PositionFileError
    from treestrap.distill.position_text import TextFileError, import_text

    source = args.source or (
        "pgn" if all(f.lower().endswith(".pgn") for f in args.files) else "text"
    )
    if source == "pgn" and args.label_depth is None:
        return _error("PGN games need --label-depth N (the depth of the search that scores them)")
    if source == "text" and args.label_depth is not None:
        return _error("--label-depth scores PGN games; text lines carry their scores")
    if Path(args.out).exists() and not args.append:
        return _error(f"{args.out} exists (--append adds to it)")
    start = time.perf_counter()
    try:
        if source == "pgn":
            return _import_pgn(args, start)
        count = import_text(
            args.files, args.out, args.format, args.append, progress=not args.no_progress
        )
    except (PositionFileError, TextFileError) as exc:
        return _error(exc)
    print(f"wrote {count:,} positions to {args.out} ({_speed(count, start)})")
    return 0


def _import_pgn(args: argparse.Namespace, start: float) -> int:
    from treestrap.distill.labels import named_model
    from treestrap.distill.pgn_positions import import_pgn

    try:
        named_model(args.weights)  # a bad name or file: one line before any work
    except (OSError, ValueError) as exc:
        return _error(f"--weights {args.weights!r}: {exc}")
    counts = import_pgn(
        args.files,
        args.out,
        args.label_depth,
        args.weights,
        args.append,
        progress=not args.no_progress,
    )
    print(f"wrote {counts.summary()} to {args.out} ({_speed(counts.positions, start)})")
    return 0

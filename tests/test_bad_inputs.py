"""Every kind of bad input a user can give, and what the user gets (docs/robustness.md,
"Bad input").

One table, ``CASES``: how each bad input is made in a temporary directory, the command
line that reads it, and a phrase of the one ``error:`` line it must produce. Every case
runs the command in process through :func:`treestrap.cli.main` and asserts exit code 2,
exactly one line with ``error:`` on stderr (argparse's own, after its usage, for a bad
option value), the phrase in it, and no traceback. ``test_real_process_...`` checks
the same once through a real process. Bad input that is not an error (a broken game in a
collection: skipped and counted; a wrong count in a perft suite: a failed check) has
tests of its own below the table.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np
import pytest
from conftest import require_module

from treestrap.cli import main

START = chess.STARTING_FEN
GAME = (
    '[Event "t"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n'
    "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
)
ILLEGAL_GAME = GAME.replace("Qh5", "Qh6")  # the queen cannot get there
BINARY = bytes(range(256)) * 8  # NUL and every other byte
NOT_PGN = "this is not a chess game at all\n" * 5


class Tmp:
    """Makes the bad inputs of one case in its temporary directory; returns paths as
    strings, ready for a command line."""

    def __init__(self, root: Path, shared: Path) -> None:
        self.root = root
        self.shared = shared  # built once per session (a trained supervised run)

    def path(self, name: str) -> str:
        return str(self.root / name)

    def file(self, name: str, content: str | bytes, encoding: str = "utf-8") -> str:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode(encoding) if isinstance(content, str) else content
        path.write_bytes(data)
        return str(path)

    def dir(self, name: str) -> str:
        (self.root / name).mkdir(parents=True, exist_ok=True)
        return str(self.root / name)

    # --- weight files --------------------------------------------------------------

    def weights(
        self,
        name: str = "w.npz",
        meta: dict[str, object] | None = None,
        weights: Callable[[np.ndarray], np.ndarray] | None = None,
        raw_meta: bytes | None = None,
    ) -> str:
        """The hand-set weights, with ``meta`` keys replaced or ``weights`` changed."""
        from treestrap.evaluation.presets import hand_set_model
        from treestrap.evaluation.weights import save_weights

        path = self.root / name
        save_weights(hand_set_model(), path)
        if meta is None and weights is None and raw_meta is None:
            return str(path)
        with np.load(path) as archive:
            stored = json.loads(archive["meta"].tobytes().decode())
            values = archive["weights"].copy()
        stored.update(meta or {})
        values = weights(values) if weights else values
        text = raw_meta if raw_meta is not None else json.dumps(stored).encode()
        with open(path, "wb") as fh:
            np.savez(fh, weights=values, meta=np.frombuffer(text, dtype=np.uint8))
        return str(path)

    def truncated(self, name: str, source: str) -> str:
        data = Path(source).read_bytes()
        return self.file(name, data[: len(data) // 2])

    # --- training runs -------------------------------------------------------------

    def run(self, name: str = "run", checkpoints: int = 1, **meta: object) -> Path:
        """A training run as ``treestrap train`` leaves it after ``checkpoints - 1``
        games, without playing them; ``meta`` goes into every weight file's metadata."""
        from treestrap.evaluation.presets import random_model
        from treestrap.evaluation.weights import save_weights
        from treestrap.training.checkpoints import RunState, with_meta
        from treestrap.training.config import TrainConfig

        run = self.root / name
        (run / "checkpoints").mkdir(parents=True)
        config = TrainConfig(games=1, depth=1)
        (run / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2))
        model = random_model(config.feature_set, seed=0)
        for games in range(checkpoints):
            with_meta(model, config, RunState(games=games))
            model.metadata.update(meta)
            save_weights(model, run / "checkpoints" / f"game-{games:06d}.npz")
        save_weights(model, run / "weights.npz")
        return run

    def edit_json(self, path: Path, **changes: object) -> None:
        data = json.loads(path.read_text())
        data.update(changes)
        path.write_text(json.dumps(data))

    # --- tournaments ---------------------------------------------------------------

    def tournament(self, name: str = "t", version: str | None = None) -> str:
        """A tournament directory with its config and no games yet; ``version`` is
        written as the results format version."""
        from treestrap.play.results_db import ResultsDB
        from treestrap.play.tournament import TournamentConfig

        config = TournamentConfig(players=["hand-set", "random"], tc="depth=1")
        ResultsDB.create(self.root / name, config.to_json()).close()
        if version is not None:
            with sqlite3.connect(self.root / name / "results.sqlite") as conn:
                # REPLACE: ResultsDB.create writes this build's version.
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('format_version', ?)", (version,))
            conn.close()
        return str(self.root / name)

    # --- supervised runs -----------------------------------------------------------

    def supervised(self) -> Path:
        """A copy of a finished one-trial logistic regression run."""
        source = self.shared / "supervised-run"
        if not source.exists():
            _train_supervised(source)
        run = self.root / "sup"
        shutil.copytree(source, run)
        return run


def _train_supervised(out: Path) -> None:
    require_module("torch", "torch")
    from test_supervised_support import data_of, split_from_dense, thirds

    from treestrap.supervised.train import TrainConfig, train_run

    rng = np.random.default_rng(0)
    dense = (rng.random((150, 769)) < 0.05).astype(np.float32)
    labels = rng.integers(0, 3, 150)
    train_run(data_of(*thirds(split_from_dense(dense, labels))), TrainConfig(epochs=1), out)


def _set_checkpoint_version(path: Path, version: int) -> None:
    from treestrap.supervised.checkpoint import load_checkpoint, save_checkpoint

    checkpoint = load_checkpoint(path)
    checkpoint.header["version"] = version
    save_checkpoint(path, checkpoint)


# ---------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Case:
    kind: str  # the row of docs/robustness.md's table it belongs to
    name: str
    argv: Callable[[Tmp], list[str]]
    phrase: str  # in the error line, case-insensitive
    usage: bool = False  # argparse refuses it: "usage: ..." then "treestrap ...: error: ..."


def perft_fen(fen: str) -> Callable[[Tmp], list[str]]:
    return lambda t: ["perft", "--fen", fen, "--depth", "1"]


def fen_cases() -> list[Case]:
    bad = [
        ("wrong-field-count", "8/8/8/8/8/8/8/8 w", "fields"),
        ("empty", "", "fields"),
        ("seven-ranks", "4k3/8/8/8/8/8/4K3 w - - 0 1", "8 ranks"),
        ("bad-piece-letter", START.replace("RNBQKBNR", "RNBQKBNX"), "unknown character 'X'"),
        ("nine-squares-in-a-rank", "4k3/8/8/8/8/8/8/4K4 w - - 0 1", "9 squares"),
        ("no-king", "8/8/8/8/8/8/8/8 w - - 0 1", "0 kings"),
        ("two-white-kings", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "2 kings"),
        ("pawn-on-rank-1", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "back rank"),
        ("pawn-on-rank-8", "P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "back rank"),
        ("castling-letter", START.replace("KQkq", "KQkx"), "castling field"),
        ("castling-without-rook", "4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling field"),
        ("en-passant-not-a-square", START.replace(" - ", " e9 "), "en-passant field"),
        ("en-passant-wrong-rank", START.replace(" - ", " e4 "), "en-passant field"),
        ("side-to-move-x", START.replace(" w ", " x "), "side to move"),
        ("negative-halfmove-clock", START.replace(" 0 1", " -1 1"), "halfmove clock"),
        ("huge-halfmove-clock", START.replace(" 0 1", " 99999999999 1"), "halfmove clock"),
        ("zero-fullmove-number", START.replace(" 0 1", " 0 0"), "fullmove number"),
        ("huge-fullmove-number", START.replace(" 0 1", " 0 " + "9" * 20), "fullmove number"),
        ("side-not-to-move-in-check", "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "not to move"),
    ]
    return [Case("FEN", name, perft_fen(fen), phrase) for name, fen, phrase in bad]


def perft_epd(make: Callable[[Tmp], str]) -> Callable[[Tmp], list[str]]:
    return lambda t: ["perft", "--epd", make(t)]


EPD_CASES = [
    Case("EPD", "missing-file", perft_epd(lambda t: t.path("none.epd")), "cannot read"),
    Case("EPD", "a-directory", perft_epd(lambda t: t.dir("suite.epd")), "is a directory"),
    Case(
        "EPD",
        "binary-garbage",
        perft_epd(lambda t: t.file("s.epd", BINARY)),
        "not an EPD text file",
    ),
    Case(
        "EPD",
        "utf-16",
        perft_epd(lambda t: t.file("s.epd", f"{START} ;D1 20\n", "utf-16")),
        "not an EPD text file",
    ),
    Case(
        "EPD",
        "latin-1",
        perft_epd(lambda t: t.file("s.epd", f'{START} ;D1 20 ;id "Müller"\n', "latin-1")),
        "line 1: not UTF-8",
    ),
    Case("EPD", "empty-file", perft_epd(lambda t: t.file("s.epd", "")), "no positions"),
    Case(
        "EPD",
        "count-not-a-number",
        perft_epd(lambda t: t.file("s.epd", f"{START} ;D1 twenty\n")),
        "line 1: bad perft count",
    ),
    Case(
        "EPD",
        "depth-out-of-range",
        perft_epd(lambda t: t.file("s.epd", f"{START} ;D1 20 ;D99 5\n")),
        "line 1: D99: perft depth",
    ),
]


def build(make: Callable[[Tmp], str]) -> Callable[[Tmp], list[str]]:
    return lambda t: [
        "dataset",
        "build",
        make(t),
        "--out",
        t.path("data"),
        "--jobs",
        "1",
        "--no-progress",
    ]


def rate_file(make: Callable[[Tmp], str]) -> Callable[[Tmp], list[str]]:
    return lambda t: ["rate", make(t)]


PGN_CASES = [
    Case(
        "PGN (dataset build)",
        "missing-file",
        build(lambda t: t.path("none.pgn")),
        "PGN file not found",
    ),
    Case("PGN (dataset build)", "empty-file", build(lambda t: t.file("g.pgn", "")), "no games"),
    Case(
        "PGN (dataset build)",
        "utf-16",
        build(lambda t: t.file("g.pgn", GAME * 3, "utf-16")),
        "not PGN text",
    ),
    Case("PGN (dataset build)", "binary", build(lambda t: t.file("g.pgn", BINARY)), "not PGN text"),
    Case(
        "PGN (dataset build)",
        "gz-that-is-not-gzip",
        build(lambda t: t.file("g.pgn.gz", GAME)),
        "not a gzipped file",
    ),
    Case(
        "PGN (dataset build)",
        "truncated-gz",
        build(lambda t: t.file("g.pgn.gz", gzip.compress((GAME * 50).encode())[:40])),
        "compressed file ended",
    ),
    Case(
        "PGN (dataset build)",
        "every-game-illegal",
        build(lambda t: t.file("g.pgn", ILLEGAL_GAME * 3)),
        "no usable games: 3 read, all skipped (illegal_move 3)",
    ),
    Case(
        "PGN (dataset build)",
        "text-that-is-not-pgn",
        build(lambda t: t.file("g.pgn", NOT_PGN)),
        "no usable games",
    ),
    Case("PGN (rate)", "missing-file", rate_file(lambda t: t.path("none.pgn")), "no such file"),
    Case(
        "PGN (rate)",
        "utf-16",
        rate_file(lambda t: t.file("g.pgn", GAME * 2, "utf-16")),
        "not a PGN text file",
    ),
    Case("PGN (rate)", "binary", rate_file(lambda t: t.file("g.pgn", BINARY)), "not a PGN text"),
    Case("PGN (rate)", "empty-file", rate_file(lambda t: t.file("g.pgn", "")), "no finished"),
    Case(
        "PGN (rate)",
        "unknown-result",
        rate_file(lambda t: t.file("g.pgn", GAME.replace('"1-0"', '"2-0"'))),
        "unknown result '2-0'",
    ),
]


def tournament_openings(make: Callable[[Tmp], str]) -> Callable[[Tmp], list[str]]:
    return lambda t: [
        "tournament",
        "hand-set",
        "random",
        "--openings",
        make(t),
        "--out",
        t.path("t"),
        "--quiet",
    ]


def polyglot_entry(board: chess.Board, uci: str) -> bytes:
    import struct

    import chess.polyglot

    move = chess.Move.from_uci(uci)
    raw = move.to_square | move.from_square << 6
    return struct.pack(">QHHI", chess.polyglot.zobrist_hash(board), raw, 1, 0)


BOOK = "Opening books (--openings)"
OPENING_CASES = [
    Case(BOOK, "missing-file", tournament_openings(lambda t: t.path("b.pgn")), "not found"),
    Case(BOOK, "a-directory", tournament_openings(lambda t: t.dir("b.pgn")), "is a directory"),
    Case(
        BOOK,
        "pgn-illegal-move",
        tournament_openings(lambda t: t.file("b.pgn", GAME + ILLEGAL_GAME)),
        "game 2: illegal san: 'Qh6'",
    ),
    Case(
        BOOK,
        "pgn-utf-16",
        tournament_openings(lambda t: t.file("b.pgn", GAME, "utf-16")),
        "not a text file",
    ),
    Case(BOOK, "pgn-binary", tournament_openings(lambda t: t.file("b.pgn", BINARY)), "not a text"),
    Case(BOOK, "pgn-empty", tournament_openings(lambda t: t.file("b.pgn", "")), "no openings"),
    Case(
        BOOK,
        "pgn-not-pgn",
        tournament_openings(lambda t: t.file("b.pgn", NOT_PGN)),
        "no opening lines",
    ),
    Case(
        BOOK,
        "pgn-bad-fen-tag",
        tournament_openings(
            lambda t: t.file("b.pgn", '[FEN "8/8/8 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 *\n')
        ),
        "game 1",
    ),
    Case(
        BOOK,
        "compressed-pgn",
        tournament_openings(lambda t: t.file("b.pgn.gz", gzip.compress(GAME.encode()))),
        "unknown opening file type '.gz'",
    ),
    Case(
        BOOK,
        "epd-bad-fen",
        tournament_openings(lambda t: t.file("b.epd", f"{START}\n8/8/8/8 w - -\n")),
        "line 2: FEN",
    ),
    Case(
        BOOK,
        "tsv-two-columns",
        tournament_openings(lambda t: t.file("b.tsv", "eco\tname\tpgn\nA00\tAmar\n")),
        "line 2: expected ECO<TAB>NAME<TAB>MOVES",
    ),
    Case(
        BOOK,
        "tsv-illegal-move",
        tournament_openings(lambda t: t.file("b.tsv", "A00\tAmar\t1. Nh3 Ke7\n")),
        "line 1: illegal san: 'Ke7'",
    ),
    Case(
        BOOK,
        "polyglot-truncated",
        tournament_openings(
            lambda t: t.file("b.bin", polyglot_entry(chess.Board(), "e2e4") + b"\x00" * 7)
        ),
        "not a readable Polyglot book",
    ),
    Case(
        BOOK,
        "polyglot-garbage",
        tournament_openings(lambda t: t.file("b.bin", (bytes(range(1, 256)) + b"\x01") * 16)),
        "no book move from the start position",
    ),
    Case(
        BOOK,
        "polyglot-empty",
        tournament_openings(lambda t: t.file("b.bin", b"")),
        "no openings found",
    ),
    Case(
        BOOK,
        "dataset-generate-reads-books-too",
        lambda t: [
            "dataset",
            "generate",
            "--engine",
            f"uci:{sys.executable}",
            "--games",
            "1",
            "--nodes",
            "1",
            "--out",
            t.path("g.pgn"),
            "--openings",
            t.file("b.pgn", GAME, "utf-16"),
            "--no-progress",
        ],
        "--openings: ",
    ),
    Case(
        BOOK,
        "train-reads-books-too",
        lambda t: [
            "train",
            "--openings",
            t.file("b.pgn", ILLEGAL_GAME),
            "--games",
            "1",
            "--depth",
            "1",
            "--out",
            t.path("run"),
        ],
        "illegal san",
    ),
]


def _nan(w: np.ndarray) -> np.ndarray:
    w[3] = np.nan
    return w


def _inf(w: np.ndarray) -> np.ndarray:
    w[-1] = -np.inf
    return w


#: Bad weight files: (name, how to make it, phrase).
WEIGHT_FILES: list[tuple[str, Callable[[Tmp], str], str]] = [
    ("missing", lambda t: t.path("none.npz"), "no such weight file"),
    ("a-directory", lambda t: t.dir("w.npz"), "(a directory)"),
    ("empty", lambda t: t.file("w.npz", b""), "(empty)"),
    ("text", lambda t: t.file("w.npz", "weights, honest"), "not an .npz archive"),
    ("bare-npy", lambda t: t.file("w.npz", b"\x93NUMPY" + bytes(100)), "a bare .npy array"),
    ("truncated", lambda t: t.truncated("cut.npz", t.weights()), "damaged or truncated"),
    ("meta-not-json", lambda t: t.weights(raw_meta=b"{format: 1"), "meta is not JSON"),
    ("newer-version", lambda t: t.weights(meta={"version": 99}), "format version 99 is newer"),
    (
        "other-feature-layout",
        lambda t: t.weights(meta={"layout_hash": "0123456789abcdef"}),
        "another layout of feature set 'meep'",
    ),
    ("unknown-feature-set", lambda t: t.weights(meta={"feature_set": "nnue"}), "'nnue'"),
    ("nan-weights", lambda t: t.weights(weights=_nan), "NaN or infinity"),
    ("inf-weights", lambda t: t.weights(weights=_inf), "NaN or infinity"),
    ("wrong-shape", lambda t: t.weights(weights=lambda w: w[:10]), "shape (10,)"),
]
#: The commands that read a weight file, each with the subset of bad files it is tried on.
WEIGHT_READERS: list[tuple[str, Callable[[str, Tmp], list[str]], tuple[str, ...]]] = [
    ("weights-show", lambda f, t: ["weights", "show", f], tuple(n for n, _, _ in WEIGHT_FILES)),
    ("uci", lambda f, t: ["uci", "--weights", f], ("missing", "truncated", "nan-weights")),
    (
        "tournament-player",
        lambda f, t: ["tournament", f"w={f}", "hand-set", "--out", t.path("t"), "--quiet"],
        ("truncated", "other-feature-layout", "nan-weights"),
    ),
    (
        "train-init",
        lambda f, t: ["train", "--init", f, "--games", "1", "--depth", "1", "--out", t.path("r")],
        ("missing", "newer-version", "inf-weights"),
    ),
]


def _read(
    make: Callable[[Tmp], str], argv: Callable[[str, Tmp], list[str]]
) -> Callable[[Tmp], list[str]]:
    return lambda t: argv(make(t), t)


def weight_cases() -> list[Case]:
    made = {name: (make, phrase) for name, make, phrase in WEIGHT_FILES}
    cases = []
    for reader, argv, names in WEIGHT_READERS:
        for name in names:
            make, phrase = made[name]
            cases.append(Case("Weight files", f"{reader}-{name}", _read(make, argv), phrase))
    return cases


def resume(make: Callable[[Tmp], object]) -> Callable[[Tmp], list[str]]:
    return lambda t: ["train", "--resume", str(make(t))]


def _cut_weights(t: Tmp) -> Path:
    run = t.run()
    t.truncated("run/weights.npz", str(run / "weights.npz"))
    return run


def _nan_run_weights(t: Tmp) -> Path:
    run = t.run()
    shutil.copy(t.weights("nan.npz", weights=_nan), run / "weights.npz")
    return run


def _config_text(t: Tmp, text: str) -> Path:
    run = t.run()
    (run / "config.json").write_text(text)
    return run


def _config_key(t: Tmp) -> Path:
    run = t.run()
    t.edit_json(run / "config.json", option_of_a_later_version=1)
    return run


def _curve_cut_start(t: Tmp) -> list[str]:
    run = t.run(checkpoints=2)
    start = run / "checkpoints" / "game-000000.npz"
    start.write_bytes(start.read_bytes()[:1000])
    return ["curve", str(run), "--out", t.path("c"), "--tc", "depth=1", "--workers", "1"]


RUNS = "Training runs (train --resume, curve)"
RUN_CASES = [
    Case(RUNS, "weights-truncated", resume(_cut_weights), "damaged or truncated"),
    Case(RUNS, "weights-nan", resume(_nan_run_weights), "NaN or infinity"),
    Case(RUNS, "config-garbage", resume(lambda t: _config_text(t, "{oops")), "config.json"),
    Case(RUNS, "config-of-a-later-version", resume(_config_key), "config.json"),
    Case(RUNS, "not-a-run-dir", resume(lambda t: t.dir("empty")), "config.json"),
    Case(RUNS, "missing-dir", resume(lambda t: t.path("none")), "config.json"),
    Case(
        RUNS,
        "run-of-another-version",
        resume(lambda t: t.run(format_version=2)),
        "version 2",
    ),
    Case(
        RUNS,
        "curve-not-a-run-dir",
        lambda t: ["curve", t.dir("empty"), "--out", t.path("c")],
        "not a training run directory",
    ),
    Case(
        RUNS,
        "curve-checkpoint-truncated",
        _curve_cut_start,
        "damaged or truncated",
    ),
    Case(
        RUNS,
        "curve-run-of-another-version",
        lambda t: [
            "curve",
            str(t.run(checkpoints=2, format_version=2)),
            "--out",
            t.path("c"),
            *["--tc", "depth=1", "--workers", "1"],
        ],
        "version 2",
    ),
]


def _garbage_db(t: Tmp) -> str:
    t.file("t/results.sqlite", b"SQLite format 3\x00" + bytes(100))
    return t.path("t")


def _config_of_later_version(t: Tmp) -> str:
    run = t.tournament()
    with sqlite3.connect(Path(run) / "results.sqlite") as conn:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        data = json.loads(text)
        data["option_of_a_later_version"] = 1
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(data),))
    conn.close()
    return run


TOURNAMENTS = "Tournament directories (tournament --resume, rate)"
TOURNAMENT_CASES = [
    Case(
        TOURNAMENTS,
        "resume-missing",
        lambda t: ["tournament", "--resume", t.path("none")],
        "no tournament in",
    ),
    Case(
        TOURNAMENTS,
        "resume-config-of-a-later-version",
        lambda t: ["tournament", "--resume", _config_of_later_version(t), "--quiet"],
        "not a tournament config",
    ),
    Case(
        TOURNAMENTS,
        "resume-garbage-database",
        lambda t: ["tournament", "--resume", _garbage_db(t), "--quiet"],
        "not a database",
    ),
    Case(
        TOURNAMENTS,
        "resume-other-version",
        lambda t: ["tournament", "--resume", t.tournament(version="2"), "--quiet"],
        "version 2",
    ),
    Case(TOURNAMENTS, "rate-missing-db", rate_file(lambda t: t.path("none.sqlite")), "no such"),
    Case(
        TOURNAMENTS,
        "rate-dir-without-results",
        rate_file(lambda t: t.dir("empty")),
        "without results.sqlite",
    ),
    Case(TOURNAMENTS, "rate-garbage-database", rate_file(_garbage_db), "not a database"),
    Case(
        TOURNAMENTS,
        "rate-other-version",
        rate_file(lambda t: t.tournament(version="2")),
        "results format version 2, this build reads version 1",
    ),
]


def convert(make: Callable[[Tmp], object]) -> Callable[[Tmp], list[str]]:
    return lambda t: ["supervised", "convert", str(make(t)), "--out", t.path("w.npz")]


def report(make: Callable[[Tmp], object]) -> Callable[[Tmp], list[str]]:
    return lambda t: ["supervised", "report", str(make(t)), "--out", t.path("report")]


def _cut_best(t: Tmp) -> Path:
    run = t.supervised()
    best = run / "trial-0" / "best.pt"
    best.write_bytes(best.read_bytes()[:300])
    return run


def _best_version(t: Tmp) -> Path:
    run = t.supervised()
    _set_checkpoint_version(run / "trial-0" / "best.pt", 2)
    return run


def _run_json(t: Tmp, text: str | None = None, **changes: object) -> Path:
    run = t.supervised()
    if text is None:
        t.edit_json(run / "run.json", **changes)
    else:
        (run / "run.json").write_text(text)
    return run


def _cut_result(t: Tmp) -> Path:
    run = t.supervised()
    (run / "trial-0" / "result.json").write_text('{"test_accuracy": 0.')
    return run


SUPERVISED = "Supervised runs and checkpoints"
SUPERVISED_CASES = [
    Case(SUPERVISED, "convert-truncated-checkpoint", convert(_cut_best), "not a readable"),
    Case(
        SUPERVISED,
        "convert-other-version",
        convert(_best_version),
        "checkpoint format version 2, this build reads version 1",
    ),
    Case(SUPERVISED, "convert-not-a-run", convert(lambda t: t.dir("empty")), "no checkpoint"),
    Case(
        SUPERVISED,
        "convert-not-a-checkpoint",
        convert(lambda t: t.file("x.pt", "text")),
        "not a readable checkpoint",
    ),
    Case(SUPERVISED, "report-not-a-run", report(lambda t: t.dir("e")), "not a supervised run"),
    Case(
        SUPERVISED,
        "report-other-version",
        report(lambda t: _run_json(t, version=2)),
        "run format version 2",
    ),
    Case(SUPERVISED, "report-garbage-run-json", report(lambda t: _run_json(t, "{")), "unreadable"),
    Case(SUPERVISED, "report-truncated-result", report(_cut_result), "unreadable trial"),
]


def train_opts(*options: str) -> Callable[[Tmp], list[str]]:
    return lambda t: ["train", *options, "--out", t.path("run")]


OPTIONS = "Option values"
OPTION_CASES = [
    Case(OPTIONS, "train-games-negative", train_opts("--games", "-1"), "games must be positive"),
    Case(OPTIONS, "train-games-zero", train_opts("--games", "0"), "games must be positive"),
    Case(OPTIONS, "train-games-text", train_opts("--games", "many"), "--games", usage=True),
    Case(OPTIONS, "train-depth-zero", train_opts("--depth", "0"), "depth must be in 1..20"),
    Case(OPTIONS, "train-depth-huge", train_opts("--depth", "99"), "depth must be in 1..20"),
    Case(OPTIONS, "train-depth-negative", train_opts("--depth", "-1"), "--depth", usage=True),
    Case(OPTIONS, "train-step-negative", train_opts("--step-size", "-1"), "step size"),
    Case(OPTIONS, "train-step-nan", train_opts("--step-size", "nan"), "step size"),
    Case(OPTIONS, "train-lambda", train_opts("--lambda", "2"), "lambda must be in [0, 1]"),
    Case(OPTIONS, "train-tt-bits", train_opts("--tt-bits", "99"), "transposition table bits"),
    Case(OPTIONS, "train-algorithm", train_opts("--algorithm", "alphazero"), "--algorithm", True),
    Case(
        OPTIONS,
        "train-nodes-zero",
        train_opts("--nodes", "0", "--games", "1"),
        "nodes",
    ),
    Case(
        OPTIONS,
        "train-nodes-negative",
        train_opts("--nodes", "-5", "--games", "1"),
        "nodes",
    ),
    Case(
        OPTIONS,
        "train-clock-negative",
        train_opts("--clock", "-1", "--games", "1", "--depth", "1"),
        "clock",
    ),
    Case(
        OPTIONS,
        "train-increment-negative",
        train_opts("--clock", "10", "--increment", "-1", "--games", "1"),
        "increment",
    ),
    Case(
        OPTIONS,
        "train-minutes-zero",
        train_opts("--minutes", "0", "--games", "1", "--depth", "1"),
        "minutes",
    ),
    Case(
        OPTIONS,
        "train-checkpoint-every-zero",
        train_opts("--checkpoint-every", "0", "--games", "1", "--depth", "1"),
        "checkpoint",
    ),
    Case(
        OPTIONS,
        "train-max-plies-zero",
        train_opts("--max-plies", "0", "--games", "1", "--depth", "1"),
        "plies",
    ),
    Case(
        OPTIONS,
        "tournament-unknown-player",
        lambda t: ["tournament", "hand-set", "deep-blue", "--out", t.path("t")],
        "unknown player 'deep-blue'",
    ),
    Case(
        OPTIONS,
        "tournament-one-player",
        lambda t: ["tournament", "hand-set", "--out", t.path("t")],
        "at least two players",
    ),
    Case(
        OPTIONS,
        "tournament-odd-games-per-pair",
        lambda t: [
            "tournament",
            "hand-set",
            "random",
            "--games-per-pair",
            "3",
            "--out",
            t.path("t"),
        ],
        "even",
    ),
    Case(
        OPTIONS,
        "tournament-zero-games-per-pair",
        lambda t: ["tournament", "hand-set", "random", "--games-per-pair", "0"],
        "--games-per-pair",
        usage=True,
    ),
    Case(
        OPTIONS,
        "tournament-zero-workers",
        lambda t: ["tournament", "hand-set", "random", "--workers", "0"],
        "--workers",
        usage=True,
    ),
    Case(
        OPTIONS,
        "tournament-bad-tc",
        lambda t: ["tournament", "hand-set", "random", "--tc", "depth=-1", "--out", t.path("t")],
        "bad time control",
    ),
    Case(
        OPTIONS,
        "tournament-bad-random-seed",
        lambda t: ["tournament", "hand-set", "random:x", "--out", t.path("t")],
        "random:SEED",
    ),
    Case(
        OPTIONS,
        "dataset-jobs-zero",
        lambda t: ["dataset", "build", t.file("g.pgn", GAME), "--out", t.path("d"), "--jobs", "0"],
        "--jobs: must be >= 1",
    ),
    Case(
        OPTIONS,
        "dataset-split",
        lambda t: [
            "dataset",
            "build",
            t.file("g.pgn", GAME),
            "--out",
            t.path("d"),
            "--split",
            "0:0:0",
        ],
        "--split",
    ),
    Case(
        OPTIONS,
        "dataset-event-regex",
        lambda t: [
            "dataset",
            "build",
            t.file("g.pgn", GAME),
            "--out",
            t.path("d"),
            "--event",
            "[(",
        ],
        "bad regular expression",
    ),
    Case(
        OPTIONS,
        "dataset-generate-games-zero",
        lambda t: ["dataset", "generate", "--games", "0", "--nodes", "1", "--out", t.path("g")],
        "--games: must be >= 1",
    ),
    Case(
        OPTIONS,
        "rate-prior-negative",
        lambda t: ["rate", t.file("g.pgn", GAME), "--prior", "-1"],
        "prior must be >= 0",
    ),
    Case(
        OPTIONS,
        "rate-prior-nan",
        lambda t: ["rate", t.file("g.pgn", GAME), "--prior", "nan"],
        "prior must be >= 0",
    ),
    Case(
        OPTIONS,
        "rate-draw-elo-infinite",
        lambda t: ["rate", t.file("g.pgn", GAME), "--draw-elo", "inf"],
        "draw Elo must be a finite number",
    ),
    Case(
        OPTIONS,
        "rate-anchor",
        lambda t: ["rate", t.file("g.pgn", GAME), "--anchor", "a"],
        "--anchor wants NAME=ELO",
    ),
    Case(
        OPTIONS,
        "rate-sprt-alpha",
        lambda t: [
            *["rate", t.file("g.pgn", GAME), "--sprt", "0,10"],
            *["--player", "a", "--opponent", "b", "--alpha", "2"],
        ],
        "alpha and beta must be in (0, 1)",
    ),
    Case(OPTIONS, "perft-depth-huge", lambda t: ["perft", "--depth", "99"], "perft depth"),
    Case(OPTIONS, "perft-depth-negative", lambda t: ["perft", "--depth", "-1"], "--depth", True),
    Case(OPTIONS, "bench-depth-zero", lambda t: ["bench", "--depth", "0"], "--depth", True),
    Case(
        OPTIONS,
        "curve-points-zero",
        lambda t: ["curve", "r", "--out", "o", "--points", "0"],
        "--points",
        usage=True,
    ),
    Case(
        OPTIONS,
        "curve-anchor-infinite",
        lambda t: ["curve", "r", "--out", "o", "--anchor-elo", "inf"],
        "--anchor-elo",
        usage=True,
    ),
    Case(
        OPTIONS,
        "reproduce-workers-zero",
        lambda t: ["reproduce", "veness2009", "--workers", "0"],
        "--workers",
        usage=True,
    ),
    Case(
        OPTIONS,
        "weights-top-negative",
        lambda t: ["weights", "show", "w.npz", "--top", "-1"],
        "--top",
        usage=True,
    ),
    Case(
        OPTIONS,
        "weights-preset-into-a-directory",
        lambda t: ["weights", "preset", "random", t.dir("out.npz")],
        "cannot write",
    ),
    Case(
        OPTIONS,
        "uci-weights-and-preset",
        lambda t: ["uci", "--weights", "w.npz", "--preset", "learned"],
        "not both",
    ),
    Case(
        OPTIONS,
        "uci-unknown-search-feature",
        lambda t: ["uci", "--search-option", "razors=off"],
        "NAME=on|off",
    ),
    Case(
        OPTIONS,
        "uci-search-feature-without-switch",
        lambda t: ["uci", "--search-option", "iir=maybe"],
        "NAME=on|off",
    ),
    Case(
        OPTIONS,
        "supervised-batch-size-zero",
        lambda t: ["supervised", "train", "--data", "d", "--out", "o", "--batch-size", "0"],
        "--batch-size",
        usage=True,
    ),
]

CASES = [
    *fen_cases(),
    *EPD_CASES,
    *PGN_CASES,
    *OPENING_CASES,
    *weight_cases(),
    *RUN_CASES,
    *TOURNAMENT_CASES,
    *SUPERVISED_CASES,
    *OPTION_CASES,
]


def _param(case: Case) -> object:
    kind = re.sub(r"[^a-z]+", "-", case.kind.lower().split(" (")[0]).strip("-")
    return pytest.param(case, id=f"{kind}-{case.name}")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared")


def run_cli(argv: list[str]) -> int:
    """``treestrap ARGV`` in process; an exception escaping it is what a user would see
    as a traceback, so it fails the test."""
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code or 0)


def check_one_error_line(err: str, phrase: str, usage: bool = False) -> None:
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, f"expected one error line, got: {err!r}"
    line = lines[0]
    if usage:
        assert "usage:" in err and re.match(r"treestrap[\w -]*: error: ", line), line
    else:
        assert line.startswith("error: "), line
    assert phrase.lower() in line.lower(), f"{phrase!r} not in {line!r}"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input_gets_one_error_line_and_exit_code_2(
    case: Case, tmp_path: Path, shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = case.argv(Tmp(tmp_path, shared))
    capsys.readouterr()  # what making the input printed
    code = run_cli(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 2, f"exit code {code}; stderr: {err!r}"
    check_one_error_line(err, case.phrase, case.usage)


def test_every_kind_has_its_docs_row() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "robustness.md"
    table = page.read_text(encoding="utf-8").split("## Bad input", 1)[1].split("\n#", 1)[0]
    kinds = {c.kind.split(" (")[0] for c in CASES}
    rows = {
        line.split("|")[1].strip().split(" (")[0]
        for line in table.splitlines()
        if line.startswith("| ")
    }
    assert kinds <= rows, kinds - rows


# ------------------------------------------------- bad input that is not an error


def test_a_bad_opening_file_leaves_no_tournament_directory(tmp_path: Path) -> None:
    book = Tmp(tmp_path, tmp_path).file("b.pgn", ILLEGAL_GAME)
    out = tmp_path / "t"
    assert run_cli(["tournament", "hand-set", "random", "--openings", book, "--out", str(out)]) == 2
    assert not out.exists()


def test_a_bad_opening_file_leaves_no_training_run(tmp_path: Path) -> None:
    book = Tmp(tmp_path, tmp_path).file("b.pgn", ILLEGAL_GAME)
    run = tmp_path / "run"
    argv = ["train", "--openings", book, "--games", "1", "--depth", "1", "--out", str(run)]
    assert run_cli(argv) == 2
    assert not run.exists()


def test_perft_suite_failures_are_counted_not_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong expected count or a broken FEN in a suite is a failed check (exit 1 and
    ``N passed, M failed``), not bad input: the suite is what is being checked."""
    suite = Tmp(tmp_path, tmp_path).file(
        "s.epd", f"{START} ;D1 20\n{START} ;D1 21\n4k3/8/8/8/8/8/8/4KK2 w - - 0 1 ;D1 5\n"
    )
    assert run_cli(["perft", "--epd", suite]) == 1
    out, err = capsys.readouterr()
    assert "1 passed, 2 failed" in out
    assert "FAIL line 2 D1: got 20, expected 21" in out
    assert "FAIL line 3: FEN piece placement: white has 2 kings" in out
    assert not err


def test_broken_games_in_a_collection_are_skipped_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``dataset build`` keeps the good games of a file that has broken ones, and says
    how many it skipped and why: an unterminated tag cuts its game short (truncated),
    an illegal move, a cut last game; a 10 MB comment and Latin-1 names are read."""
    t = Tmp(tmp_path, tmp_path)
    huge_comment = GAME.replace("1. e4", "1. e4 {" + "x" * 10_000_000 + "}")
    latin1 = GAME.replace('"a"', '"Müller"').encode("latin-1")
    text = (
        GAME
        + '[Event "t\n[White a]\n'  # bad tags: the game they start ends without a result
        + ILLEGAL_GAME
        + huge_comment
    ).encode() + latin1
    pgn = t.file("g.pgn", text + GAME[:-30].encode())  # the last game cut mid-movetext
    argv = ["dataset", "build", pgn, "--out", t.path("d"), "--jobs", "1", "--no-progress"]
    assert run_cli(argv) == 0
    out = capsys.readouterr().out
    assert "games: 6 read, 3 kept, 3 skipped (illegal_move 1, truncated 2)" in out


def test_openings_read_what_can_be_read(tmp_path: Path) -> None:
    """A cut last game is used as far as it goes; a broken tag, a huge comment and
    Latin-1 names do not matter to a book."""
    from treestrap.play.openings import load_openings

    t = Tmp(tmp_path, tmp_path)
    comment = GAME.replace("1. e4", "1. e4 {" + "x" * 1_000_000 + "}")
    text = ('[Event "t\n' + comment).encode() + GAME.replace('"a"', '"Müller"').encode("latin-1")
    book = load_openings(t.file("b.pgn", text + GAME[: GAME.index("Bc4")].encode()))
    assert [len(o.moves) for o in book] == [7, 7, 4]


def test_rate_reads_cut_and_latin_1_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Tmp(tmp_path, tmp_path)
    games = GAME + GAME.replace("1-0", "0-1") + GAME.replace("1-0", "1/2-1/2")
    text = games.encode() + GAME.replace('"a"', '"Müller"').encode("latin-1")
    assert run_cli(["rate", t.file("g.pgn", text + GAME[:-30].encode())]) == 0
    assert "M\ufffdller" in capsys.readouterr().out


def test_real_process_prints_one_error_line_and_exits_2(tmp_path: Path) -> None:
    """The console entry point gives the same, with no traceback, in a real process."""
    bad = Tmp(tmp_path, tmp_path).weights(weights=_nan)
    proc = subprocess.run(
        [sys.executable, "-m", "treestrap.cli", "uci", "--weights", bad],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    check_one_error_line(proc.stderr, "NaN or infinity")


def test_a_bad_init_file_leaves_no_training_run(tmp_path: Path) -> None:
    bad = Tmp(tmp_path, tmp_path).file("w.npz", "not a weight file")
    run = tmp_path / "run"
    argv = ["train", "--init", bad, "--games", "1", "--depth", "1", "--out", str(run)]
    assert run_cli(argv) == 2
    assert not run.exists()

"""Fingerprint what treestrap writes, to show that a change of structure changes no output.

Runs linear and network training runs and a tournament of each game and the paper
reproductions (veness2009 on both games) on fixed seeds, then hashes every file they
wrote with what depends on the clock taken out (seconds, nodes per second, dates, the
code's commit). Run it on the code before a change and after, and compare::

    python tools/output_fingerprint.py --out BEFORE            # on the old commit
    python tools/output_fingerprint.py --out AFTER             # on the new one
    python tools/output_fingerprint.py --compare BEFORE/fingerprint.json AFTER/fingerprint.json

``--budget tiny`` (the default) runs each in a minute or two; ``--budget quick`` runs
the reproductions at their smallest named budgets (about 20 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

#: The reference data that ships with the repository (reference/README.md).
REFERENCE = (Path(__file__).resolve().parents[1] / "reference").resolve()
ECO = REFERENCE / "openings" / "eco.pgn"
TWIC = REFERENCE / "games" / "twic0920-sample.pgn"
SOLVED = REFERENCE / "connect4" / "solved-1000.txt"

#: keys whose values follow the clock or the checkout, not the computation (a dataset's
#: manifest hash covers the paths of its files, and a checkpoint's digest that hash)
CLOCK_KEY = re.compile(
    r"second|nps|time|date|elapsed|created|started|finished|per_hour|commit|cpu|version_git"
    r"|wall|speed|duration|host|manifest_hash|sha256|command",
    re.IGNORECASE,
)
#: "12 s", "3.4 s": durations printed into text reports
DURATION = re.compile(r"\d+(\.\d+)? s\b")
#: the seconds a move took, in PGN comments ("{ +0.31 0.01s }")
MOVE_TIME = re.compile(rb"\d+\.\d+s\b")
#: a path to the reference data, wherever the checkout is
REFERENCE_PATH = re.compile(rb"(?:/[\w.-]+)*/reference(?=/(?:openings|games|connect4|perft)/)")
#: files that only hold durations
SKIPPED = {"timings.json", "curve.png"}  # curve.png: its right panel is CPU time


#: a file's SHA-256, which covers its provenance record (the command line among it)
FILE_HASH = re.compile(r"^[0-9a-f]{64}$")


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not CLOCK_KEY.search(str(k))}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, str) and FILE_HASH.match(value):
        return "<sha256>"
    return value


def _json_digest(text: str) -> bytes:
    return json.dumps(_clean(json.loads(text)), sort_keys=True).encode()


def _array_digest(array: np.ndarray) -> bytes:
    text = None
    if array.dtype.kind in "US" and array.ndim == 0:
        text = str(array)
    elif array.dtype == np.uint8 and array.ndim == 1:
        text = array.tobytes().decode("utf-8", errors="replace")  # a JSON header
    if text is not None:
        try:
            return _json_digest(text)
        except ValueError:
            return text.encode()
    if array.dtype == object:
        return repr(array.tolist()).encode()
    return array.dtype.str.encode() + repr(array.shape).encode() + array.tobytes()


def _npz(path: Path) -> bytes:
    with np.load(path, allow_pickle=False) as data:
        return b"".join(name.encode() + _array_digest(data[name]) for name in sorted(data.files))


def _sqlite(path: Path) -> bytes:
    lines = []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        for table in sorted(tables):
            cursor = db.execute(f"select * from {table}")
            names = [d[0] for d in cursor.description]
            keep = [i for i, n in enumerate(names) if not CLOCK_KEY.search(n)]
            rows = sorted(repr([row[i] for i in keep]) for row in cursor)
            lines.append(f"{table} {[names[i] for i in keep]} {rows}")
    return "\n".join(lines).encode()


def _torch(path: Path) -> bytes:
    import torch

    def flat(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach().cpu().numpy().tobytes().hex()
        if isinstance(value, dict):
            return {str(k): flat(v) for k, v in value.items() if not CLOCK_KEY.search(str(k))}
        if isinstance(value, list | tuple):
            return [flat(v) for v in value]
        if isinstance(value, str) and value.startswith("{"):
            try:
                return flat(json.loads(value))
            except ValueError:
                return value
        return value

    data = torch.load(path, map_location="cpu", weights_only=False)
    return json.dumps(flat(data), sort_keys=True, default=repr).encode()


def _text(path: Path) -> bytes:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".pgn":
        lines = [x for x in text.splitlines() if not re.match(r"\[(UTC)?(Date|Time) ", x)]
        # games in the order they were played, which parallel workers may change
        games = re.split(r"\n\n(?=\[Event )", "\n".join(lines))
        return "\n\n".join(sorted(g.strip() for g in games)).encode()
    if path.suffix == ".csv":
        rows = [x.split(",") for x in text.splitlines()]
        keep = [i for i, name in enumerate(rows[0] if rows else []) if not CLOCK_KEY.search(name)]
        return "\n".join(",".join(r[i] for i in keep if i < len(r)) for r in rows).encode()
    return DURATION.sub("N s", text).encode()


def digest(path: Path, places: list[tuple[str, str]]) -> str:
    """The file's hash with its clock-dependent parts taken out and each of ``places``
    (a directory, its stand-in) replaced."""
    suffix = path.suffix
    if suffix == ".json":
        body = _json_digest(path.read_text(encoding="utf-8"))
    elif suffix == ".jsonl":
        body = b"\n".join(
            _json_digest(x) for x in path.read_text(encoding="utf-8").splitlines() if x
        )
    elif suffix == ".npz":
        body = _npz(path)
    elif suffix in (".sqlite", ".db"):
        body = _sqlite(path)
    elif suffix in (".pt", ".pth"):
        body = _torch(path)
    elif suffix == ".png":
        # matplotlib's PNGs carry no date: the bytes are the picture
        body = path.read_bytes()
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            body = b"".join(n.encode() + z.read(n) for n in sorted(z.namelist()))
    else:
        body = _text(path)
    for place, name in places:
        body = body.replace(place.encode(), name.encode())
    body = REFERENCE_PATH.sub(b"<REFERENCE>", MOVE_TIME.sub(b"Ns", body))
    return hashlib.sha256(body).hexdigest()


def fingerprint(root: Path) -> dict[str, str]:
    """Every file under ``root`` (but the fingerprint itself and the durations) by hash,
    with the places of the runs and of the reference data named, not spelled out."""
    found = {}
    places = [(str(root.resolve()), "<OUT>"), (str(REFERENCE), "<REFERENCE>")]
    if not root.is_absolute():  # the runs were given the place as it was typed too
        places.insert(1, (str(root), "<OUT>"))
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name not in SKIPPED and path.name != "fingerprint.json":
            if path.suffix in (".lock", ".tmp", ".log"):
                continue
            found[str(path.relative_to(root))] = digest(path, places)
    return found


def _treestrap(*args: str) -> None:
    command = [str(Path(sys.executable).parent / "treestrap"), *args]
    print("+ treestrap", " ".join(args), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def run_all(out: Path, budget: str) -> None:
    """The runs whose files are fingerprinted."""
    book = ["--openings", str(ECO)] if ECO.is_file() else []
    _treestrap(
        "train", "--preset", "strong", "--games", "3", "--depth", "2", "--seed", "3",
        "--checkpoint-every", "1", "--out", str(out / "train-strong"), *book,
    )  # fmt: skip
    _treestrap(
        "train", "--algorithm", "td-leaf", "--games", "2", "--depth", "2", "--seed", "4",
        "--out", str(out / "train-td-leaf"), *book,
    )  # fmt: skip
    _treestrap(
        "train", "--algorithm", "treestrap-mm", "--games", "2", "--minimax-nodes", "200",
        "--minimax-qnodes", "10", "--max-plies", "40", "--seed", "5",
        "--out", str(out / "train-treestrap-mm"),
    )  # fmt: skip
    _treestrap(
        "train", "--model", "mlp:8", "--games", "2", "--minimax-nodes", "100",
        "--minimax-qnodes", "8", "--max-plies", "30", "--seed", "6",
        "--out", str(out / "train-net-mm"),
    )  # fmt: skip
    _treestrap(
        "train", "--model", "mlp:8", "--algorithm", "treestrap-ab", "--depth", "2",
        "--games", "2", "--max-plies", "40", "--seed", "7", "--out", str(out / "train-net-ab"),
    )  # fmt: skip
    _treestrap(
        "tournament", "--tc", "depth=2", "--games-per-pair", "2", "--workers", "2",
        "--out", str(out / "tournament"), "hand-set", "learned",
        f"strong={out / 'train-strong' / 'weights.npz'}", *book,
    )  # fmt: skip
    _connect4_runs(out)
    _reproductions(out, budget)


def _connect4_runs(out: Path) -> None:
    """Connect Four's training (linear and network, both searches), a tournament."""
    c4 = ("--game", "connect4")
    _treestrap(
        "train", *c4, "--algorithm", "treestrap-ab", "--games", "6", "--depth", "3",
        "--seed", "8", "--checkpoint-every", "3", "--out", str(out / "c4-treestrap-ab"),
    )  # fmt: skip
    _treestrap(
        "train", *c4, "--algorithm", "td-leaf", "--games", "4", "--depth", "2", "--seed", "9",
        "--out", str(out / "c4-td-leaf"),
    )  # fmt: skip
    _treestrap(
        "train", *c4, "--algorithm", "treestrap-mm", "--games", "4", "--minimax-nodes", "200",
        "--seed", "10", "--out", str(out / "c4-treestrap-mm"),
    )  # fmt: skip
    _treestrap(
        "train", *c4, "--model", "mlp:8", "--algorithm", "treestrap-ab", "--depth", "2",
        "--games", "3", "--seed", "11", "--out", str(out / "c4-net-ab"),
    )  # fmt: skip
    _treestrap(
        "tournament", *c4, "--games-per-pair", "2", "--out", str(out / "c4-tournament"),
        "hand-set:depth=2", "random-weights:seed=3:depth=2",
        f"{out / 'c4-treestrap-ab' / 'weights.npz'}:depth=2",
    )  # fmt: skip


def _reproductions(out: Path, budget: str) -> None:
    from treestrap.reproduce import serban2014, veness2009
    from treestrap.reproduce.veness2009_connect4 import Connect4Budget, reproduce_connect4

    if budget == "tiny":
        v_budget: Any = veness2009.Budget(
            games=4, depth=2, clock=None, increment=0.0, minimax_nodes=100,
            minimax_qnodes=8, max_plies=40, points_per_run=2, tournament_tc="depth=1",
            games_per_pair=2, note="tiny",
            learning={"treestrap-ab": veness2009.STRONG_TREESTRAP_AB},
        )  # fmt: skip
        s_budget: Any = serban2014.Budget(
            epochs=1, candidates=((1.0, 1), (0.5, 1), (0.25, 1)), games=2,
            checkpoint_every=1, minimax_nodes=60, minimax_qnodes=6, train_plies=20,
            replay_size=2000, tree_nodes=60, batch_size=64, tc="depth=1",
            games_per_pair=2, max_plies=24, finish_tc="depth=2", finish_plies=24,
            note="tiny",
        )  # fmt: skip
        c4_budget: Any = Connect4Budget(
            games=6, depth=2, minimax_nodes=200, points_per_run=2, games_per_pair=2,
            note="tiny",
        )  # fmt: skip
    else:
        v_budget = s_budget = c4_budget = budget
    print("+ reproduce veness2009 --game connect4", flush=True)
    reproduce_connect4(
        out / "veness2009-connect4", budget=c4_budget, positions=SOLVED, seed=1, workers=2,
        progress=False,
    )  # fmt: skip
    print("+ reproduce veness2009", flush=True)
    veness2009.reproduce(out / "veness2009", budget=v_budget, seed=1, workers=2, progress=False)
    print("+ reproduce serban2014", flush=True)
    serban2014.reproduce(
        out / "serban2014",
        budget=s_budget,
        pgn=str(TWIC),
        openings=str(ECO),
        seed=1,
        workers=2,
        progress=False,
    )


def compare(before: Path, after: Path) -> int:
    """Print the files that differ or exist on one side only; 0 when none."""
    a = json.loads(before.read_text())
    b = json.loads(after.read_text())
    differ = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
    only_a = sorted(a.keys() - b.keys())
    only_b = sorted(b.keys() - a.keys())
    for name in differ:
        print(f"differs: {name}")
    for name in only_a:
        print(f"only before: {name}")
    for name in only_b:
        print(f"only after: {name}")
    same = len(a.keys() & b.keys()) - len(differ)
    print(f"{same} files the same, {len(differ) + len(only_a) + len(only_b)} not")
    return 1 if differ or only_a or only_b else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="a new directory for the runs")
    parser.add_argument("--budget", choices=("tiny", "quick"), default="tiny")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--rehash", type=Path, metavar="DIR", help="fingerprint DIR again")
    args = parser.parse_args(argv)
    if args.rehash:
        prints = fingerprint(args.rehash)
        (args.rehash / "fingerprint.json").write_text(json.dumps(prints, indent=1, sort_keys=True))
        return 0
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give --out DIR or --compare BEFORE AFTER")
    if args.out.exists() and any(args.out.iterdir()):
        parser.error(f"{args.out} is not empty")
    args.out.mkdir(parents=True, exist_ok=True)
    run_all(args.out, args.budget)
    prints = fingerprint(args.out)
    (args.out / "fingerprint.json").write_text(json.dumps(prints, indent=1, sort_keys=True))
    print(f"{len(prints)} files fingerprinted into {args.out / 'fingerprint.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

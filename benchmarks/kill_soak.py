"""Kill soak: ``treestrap train --resume`` and ``treestrap tournament --resume`` under
many SIGKILLs at random moments; afterwards every game must be there exactly once and
every file must load.

Examples (from the repository root, with the package installed)::

    python benchmarks/kill_soak.py --kills 40 --what train
    python benchmarks/kill_soak.py --kills 20 --what both --seed 3 --keep runs/soak

A kill lands after a random delay or just after a record or commit file changes (see
``tests/kill_checks.py``, shared with ``tests/test_kill_resume.py``); each run is
resumed until it finishes, then checked, and a new one starts while kills remain. The
training runs are also compared with one never interrupted: same config, same weights.
It prints one line per kind, e.g.::

    train: 40 kills (17 mid-write), 0 lost, 0 duplicated, 60 games in 5 runs, all files load

and exits 1 if a game was lost or doubled or a file did not load.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

# The soak and its checks are test code, kept beside the tests rather than in the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from kill_checks import soak, summary, tournament_soak, training_soak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="kills per kind (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="kill moments (default 1)")
    parser.add_argument("--what", choices=["train", "tournament", "both"], default="both")
    parser.add_argument("--games", type=int, default=12, help="training games per run")
    parser.add_argument(
        "--games-per-pair", type=int, default=4, help="tournament: 3 players, 3 pairs"
    )
    parser.add_argument("--keep", metavar="DIR", help="write the runs here and keep them")
    parser.add_argument("--verbose", action="store_true", help="a line per kill")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    log = print if args.verbose else None
    kinds = ["train", "tournament"] if args.what == "both" else [args.what]
    ok = True
    with tempfile.TemporaryDirectory(prefix="kill-soak-") as scratch:
        base = Path(args.keep or scratch)
        for kind in kinds:
            started = time.monotonic()
            if kind == "train":
                result = soak(training_soak(games=args.games), base, args.kills, rng, True, log)
            else:
                result = soak(tournament_soak(args.games_per_pair), base, args.kills, rng, log=log)
            print(f"{summary(kind, result)} ({time.monotonic() - started:.0f} s)", flush=True)
            ok = ok and result.check.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

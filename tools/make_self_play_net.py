"""Make the ``self-play-net`` preset from random weights by self-play alone, with the
tools only, so its file carries the whole provenance chain.

    python tools/make_self_play_net.py [--out runs/self-play-net] [--games 8000] [--ship]

Three steps, each resumable (run the same command again after a kill):

1. ``treestrap train --preset strong``: linear weights from random ones by TreeStrap
   self-play (its games are kept in the run's ``games.pgn``);
2. ``treestrap distill label``: those games' positions scored by the trained weights'
   search at depth 5, self-play games only;
3. ``treestrap distill fit``: a clipped-ReLU hybrid over the trained weights, both
   parts fitted.

``--ship`` then copies the network into the package as the preset (the file as the
tools wrote it, with only its preset name added: ``tools/ship_preset.py``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

#: The console script installed beside this Python.
TREESTRAP = [str(Path(sys.executable).with_name("treestrap"))]


def run(args: list[str]) -> None:
    print("+ treestrap " + " ".join(args), flush=True)
    subprocess.run([*TREESTRAP, *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("runs/self-play-net"))
    # The strong preset plays its first 8265 games against itself: all of these are.
    parser.add_argument("--games", type=int, default=8000, help="self-play games (8000)")
    parser.add_argument("--seed", type=int, default=1, help="the random start's seed")
    parser.add_argument("--depth", type=int, default=5, help="labelling depth (5)")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units (64)")
    parser.add_argument("--jobs", type=int, default=2, help="labelling processes (2)")
    parser.add_argument("--ship", action="store_true", help="ship it as the preset")
    args = parser.parse_args()
    linear, labels, net = args.out / "linear", args.out / "labels", args.out / "net.npz"
    if (linear / "weights.npz").exists():
        run(["train", "--resume", str(linear), "--games", str(args.games)])
    else:
        run(["train", "--preset", "strong", "--seed", str(args.seed), "--games",
             str(args.games), "--out", str(linear)])  # fmt: skip
    weights = str(linear / "weights.npz")
    run(["distill", "label", str(linear / "games.pgn"), "--out", str(labels), "--teacher",
         weights, "--depth", str(args.depth), "--players", "self-play", "--jobs",
         str(args.jobs), "--no-progress"])  # fmt: skip
    if not net.exists():
        run(["distill", "fit", str(labels), "--hidden", str(args.hidden), "--linear-part",
             weights, "--fit-linear", "--out", str(net)])  # fmt: skip
    if args.ship:
        tool = Path(__file__).with_name("ship_preset.py")
        subprocess.run([sys.executable, str(tool), str(net), "--preset", "self-play-net"],
                       check=True)  # fmt: skip


if __name__ == "__main__":
    main()

"""Training presets, kept free of heavy imports so the command line can list them
instantly (``treestrap train --help``). Each sets options of
:mod:`treestrap.training.options` by name; the values they use are in
:mod:`treestrap.learn.rules`."""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    # Veness et al. 2009, section 6: 1m+1s Fischer clocks with learning time charged to
    # the clock, greedy moves after a small book, small random initial weights.
    "paper": {"clock": 60.0, "increment": 1.0, "depth": None, "init": "random"},
    # Minutes for tens of games on 2 cores: a fixed shallow search.
    "quick": {
        "depth": 3,
        "clock": None,
        "nodes": None,
        "minimax_nodes": 1500,
        "minimax_qnodes": 100,
        "max_plies": 200,
        "checkpoint_every": 5,
    },
    # The best measured combination for TreeStrap(alpha-beta) on 2 cores
    # (docs/learning.md): depth-3 searches; nodes valued by their quiescence search
    # (Q(s) through its principal leaf, not H(s): H cannot see the captures at hand,
    # and fitting them taught every earlier setting a bonus for the side to move);
    # targets clipped to +-1000 (ten pawns), so found mates stop inflating the material
    # weights once a side is that far ahead; every weight learns, tempo included (with
    # quiescence values it settles near half a pawn instead of growing to several); a
    # step 400 times the paper's 5e-7 for depth-3 trees, halving after 300 games; after
    # 8265 games of self-play, the hand-set weights (depth 3) as the partner: more
    # self-play had stopped gaining, the partner's games gained +149 Elo at depth 6.
    "strong": {
        "algorithm": "treestrap-ab",
        "games": 1000,
        "depth": 3,
        "clock": None,
        "nodes": None,
        "step_size": 2e-4,
        "optimizer": "sgd",
        "node_value": "quiescence",
        "target_clip": 1000.0,
        "freeze": [],
        "step_decay": 300.0,
        "opponent": "hand-set",
        "opponent_depth": 3,
        "opponent_after": 8265,
        "max_plies": 200,
        "checkpoint_every": 50,
    },
    # The best measured network (docs/networks.md): a hybrid, a 32-unit clipped-ReLU MLP
    # on the bitboard inputs added to the learned linear weights, which stay fixed; the
    # MLP's output starts at zero, so the run starts as strong as `learned` and learns
    # what the linear weights miss. TreeStrap(alpha-beta) with quiescence node values,
    # depth 3, 8 mini-batch steps of 128 after each search, step 0.001. The replay set
    # holds 3,000,000 positions (about 50 games of trees, 291 MB bit-packed): with
    # 300,000 (5 games) the same run gained +22 at depth 4, with 3,000,000 +52. 700
    # games: the depth-4 gain peaks between 700 and 800 (step 0.003 peaks near 250, and
    # lower). A frozen teacher (--teacher-every 100) gained +67 at depth 4 by 1000 games
    # but not at 10s+0.1s (-49 against learned, this one's -33), so it is not set here.
    "strong-net": {
        "model": "crelu:32",
        "linear_part": "learned",
        "init": "random",
        "algorithm": "treestrap-ab",
        "feature_set": "bitboard",
        "objective": "soft-cross-entropy",
        "games": 700,
        "depth": 3,
        "clock": None,
        "nodes": None,
        "node_value": "quiescence",
        "step_size": 0.001,
        "replay_size": 3_000_000,
        "replay_steps": 8,
        "batch_size": 128,
        "max_plies": 200,
        "checkpoint_every": 50,
    },
}

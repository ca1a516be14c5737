"""``treestrap train``: a training run with a progress bar, or the resumption of one.

Building the parser reads only :mod:`treestrap.training.presets` (no numba), so that
``treestrap train --help`` stays instant; the run is imported inside the handler.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import (
    add_backend_arguments,
    check_backend_arguments,
    int_at_least,
)
from treestrap.learn.names import (
    ALGORITHM_NAMES,
    NETWORK_ALGORITHM,
    NETWORK_OBJECTIVES,
    NODE_VALUES,
    OBJECTIVES,
    OPTIMIZERS,
)
from treestrap.training.presets import PRESETS


def _at_least_one(text: str) -> int:
    return int_at_least(1, text)


def add_parser(sub: Any) -> None:
    preset_help = "; ".join(
        f"{name}: " + ", ".join(f"{k}={v}" for k, v in values.items())
        for name, values in PRESETS.items()
    )
    t = sub.add_parser(
        "train",
        help="learn weights from self-play (or an opponent) with TD/RootStrap/TreeStrap",
        description="Play training games and update the weights from every search. "
        "Defaults: treestrap-ab, meep features, random small initial weights, depth 3, "
        "self-play, the built-in opening book.",
    )
    t.add_argument("--algorithm", choices=list(ALGORITHM_NAMES))
    t.add_argument("--games", type=int, help="games to play in total (default 20)")
    t.add_argument(
        "--out", metavar="RUN_DIR", help="new run directory (default: runs/ALGORITHM-TIME)"
    )
    t.add_argument("--resume", metavar="RUN_DIR", help="continue a stopped run")
    t.add_argument("--preset", choices=list(PRESETS), help=preset_help)
    t.add_argument("--feature-set", dest="feature_set", choices=["meep", "bitboard"])
    t.add_argument("--init", help="'random' (default), 'hand-set' or a weight file")
    t.add_argument("--seed", type=int, help="seed of the random weights and openings")
    t.add_argument(
        "--step-size",
        dest="step_size",
        type=float,
        help="default: the paper's value for the algorithm",
    )
    t.add_argument("--lambda", dest="lam", type=float, help="TD lambda (default 0.7)")
    t.add_argument("--min-depth", dest="min_depth", type=int, help="TreeStrap d (default 1)")
    t.add_argument("--depth", type=int, help="fixed alpha-beta search depth (default 3)")
    t.add_argument("--nodes", type=int, help="node budget per move instead of a depth")
    t.add_argument("--clock", type=float, help="Fischer clock base in seconds")
    t.add_argument("--increment", type=float, help="Fischer increment in seconds")
    t.add_argument(
        "--minimax-nodes",
        dest="minimax_nodes",
        type=int,
        help="minimax tree node budget (default 5000)",
    )
    t.add_argument(
        "--minimax-qnodes",
        dest="minimax_qnodes",
        type=int,
        help="minimax quiescence nodes per leaf (default 500)",
    )
    t.add_argument(
        "--opponent",
        help="'self' (default), a preset ('hand-set', 'learned'), 'stockfish[:ELO]', "
        "'uci:CMD' or a weight file",
    )
    t.add_argument("--opponent-depth", dest="opponent_depth", type=int)
    t.add_argument(
        "--opponent-after",
        dest="opponent_after",
        type=int,
        metavar="GAMES",
        help="play the first GAMES games against itself, then against --opponent "
        "(default 0; 8265 in --preset strong)",
    )
    t.add_argument(
        "--ladder",
        action="store_true",
        default=None,
        help="raise/lower the opponent's UCI_Elo with the learner's score",
    )
    t.add_argument("--openings", help="opening lines: .tsv/.pgn/.epd (default: built-in)")
    t.add_argument("--max-plies", dest="max_plies", type=int)
    t.add_argument("--checkpoint-every", dest="checkpoint_every", type=int)
    t.add_argument(
        "--freeze",
        action="append",
        metavar="PREFIX",
        help="keep the weights of features named PREFIX... at their initial values "
        "(repeatable; default: tempo; 'none' learns every weight)",
    )
    t.add_argument(
        "--optimizer",
        choices=list(OPTIMIZERS),
        help="how updates are applied: sgd (the paper's fixed step, default), adagrad or "
        "adam (per-feature adaptive steps; --step-size is then a change in weight units, "
        "default 1)",
    )
    t.add_argument(
        "--normalise-step",
        dest="normalise_step",
        action="store_true",
        default=None,
        help="TreeStrap: divide each search's update by the number of nodes in its tree",
    )
    t.add_argument(
        "--quiet-only",
        dest="quiet_only",
        action="store_true",
        default=None,
        help="TreeStrap: learn only from quiet nodes (not in check, no capture or "
        "promotion that wins at once): a linear evaluation cannot see a tactic, and "
        "fitting one teaches it a bonus for the side to move",
    )
    t.add_argument(
        "--node-value",
        dest="node_value",
        choices=list(NODE_VALUES),
        help="TreeStrap(alpha-beta): what a node's search bounds correct: static, H(s) "
        "(the paper's, default), or quiescence, the node's quiescence value Q(s) through "
        "its principal quiescence leaf (the value the search itself gives a node)",
    )
    t.add_argument(
        "--target-clip",
        dest="target_clip",
        type=float,
        metavar="CP",
        help="TreeStrap: clip search bounds to +-CP before they become targets (default "
        "9900, the paper's heuristic range; a few pawns keeps found mates from "
        "inflating the material weights)",
    )
    t.add_argument(
        "--objective",
        choices=list(dict.fromkeys([*OBJECTIVES, *NETWORK_OBJECTIVES])),
        help="RootStrap/TreeStrap error: squared (the paper's, default), cross-entropy or "
        "squashed (values read as win probabilities: a mate target pulls like about a "
        "queen, not like 99 pawns). With --model, Serban's Table 4.1: squared, "
        "hard-cross-entropy, soft-cross-entropy (default) or reversed-kl",
    )
    t.add_argument(
        "--step-decay",
        dest="step_decay",
        type=float,
        metavar="GAMES",
        help="the step halves after GAMES games (step * GAMES / (GAMES + games played)); "
        "default 0: the fixed step",
    )
    t.add_argument(
        "--init-scale",
        dest="init_scale",
        type=float,
        help="random initial weights are uniform in [-SCALE, SCALE] (default 1); a "
        "network's in [-SCALE/sqrt(fan-in), SCALE/sqrt(fan-in)]",
    )
    t.add_argument("--tt-bits", dest="tt_bits", type=int, help="log2 of the table's entries")
    net = t.add_argument_group(
        "networks (Serban 2014, Algorithm 7)",
        "--model trains a network on the bitboard inputs by mini-batches from a replay "
        "set of minimax-tree positions (algorithm treestrap-mm, the default; --depth caps "
        "the trees, --minimax-nodes bounds them), or with --algorithm treestrap-ab of "
        "the alpha-beta's table entries with their bounds and a one-sided loss (--depth "
        "or --nodes); --init random or a network file of the same layers; --step-size "
        "is the learning rate, default 0.01",
    )
    net.add_argument(
        "--model", help="'linear' (default), 'logreg' or 'mlp:H' (H hidden tanh units)"
    )
    net.add_argument(
        "--replay-size",
        dest="replay_size",
        type=_at_least_one,
        metavar="N",
        help="positions kept in the replay set (default 100000; each node enters twice, "
        "as searched and colour-flipped)",
    )
    net.add_argument(
        "--batch-size",
        dest="batch_size",
        type=_at_least_one,
        metavar="M",
        help="mini-batch size (default 64)",
    )
    net.add_argument(
        "--tree-nodes",
        dest="tree_nodes",
        type=_at_least_one,
        metavar="K",
        help="nodes of each search tree added to the replay set, by increasing depth (default 500)",
    )
    net.add_argument("--momentum", type=float, help="Nesterov momentum (default 0.9; 0: plain SGD)")
    net.add_argument(
        "--replay-steps",
        dest="replay_steps",
        type=_at_least_one,
        metavar="S",
        help="mini-batch steps after each search (default 1)",
    )
    t.add_argument(
        "--minutes",
        type=float,
        help="stop after the game that ends past this many minutes (resume carries on)",
    )
    scale = t.add_argument_group("scale-out")
    scale.add_argument(
        "--actors",
        type=_at_least_one,
        default=1,
        metavar="N",
        help="self-play actors feeding one learner (default 1: one process, "
        "deterministic by depth or nodes); each game's metrics record its weight version",
    )
    scale.add_argument(
        "--publish-every",
        dest="publish_every",
        type=_at_least_one,
        default=1,
        metavar="K",
        help="the learner sends actors new weights every K games (default 1)",
    )
    add_backend_arguments(scale, "the actors")
    t.set_defaults(func=run_train)


def _network_run(args: argparse.Namespace) -> bool | str:
    """Whether the run trains a network (``--model``, or a resumed network run), or a
    problem to report; options of networks without ``--model`` are refused."""
    if args.resume:
        from treestrap.training.run import saved_config

        try:
            return saved_config(Path(args.resume), 0).model != "linear"
        except (OSError, ValueError):
            return False  # the run itself says what is wrong with it
    if args.model is None or args.model == "linear":
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("replay_size", "batch_size", "tree_nodes", "momentum", "replay_steps")
            if getattr(args, name) is not None
        ]
        if given:
            return f"{', '.join(given)}: options of network runs; give --model logreg or mlp:H"
        return False
    return True


def _saved_games(run_dir: str) -> int:
    """The games a run directory was started for, for the progress bar of a resumed run
    (0, an open-ended bar, where its config cannot be read: the run itself says why)."""
    from treestrap.training.run import saved_config

    try:
        return saved_config(Path(run_dir), 0).games
    except (OSError, ValueError):
        return 0


def run_train(args: argparse.Namespace) -> int:
    import dataclasses

    from tqdm import tqdm

    from treestrap.training.config import TrainConfig, apply_preset
    from treestrap.training.run import train

    # Before the run exists: a zero limit would make a run that plays no game.
    if args.minutes is not None and not args.minutes > 0:
        print("error: --minutes must be positive", file=sys.stderr)
        return 2
    problem = check_backend_arguments(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    network = _network_run(args)
    if isinstance(network, str):
        print(f"error: {network}", file=sys.stderr)
        return 2
    if args.resume:
        run_dir = args.resume
        config = TrainConfig(games=args.games or _saved_games(run_dir))
    else:
        config = TrainConfig()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = args.model.replace(":", "") if network else args.algorithm or config.algorithm
        run_dir = args.out or f"runs/{name}-{stamp}"
        print(f"run directory: {run_dir}")
        if args.preset:
            config = apply_preset(config, args.preset)
        overrides = {
            name: getattr(args, name)
            for name in (
                "algorithm",
                "games",
                "feature_set",
                "init",
                "seed",
                "step_size",
                "lam",
                "min_depth",
                "depth",
                "nodes",
                "clock",
                "increment",
                "minimax_nodes",
                "minimax_qnodes",
                "opponent",
                "opponent_depth",
                "opponent_after",
                "ladder",
                "openings",
                "max_plies",
                "checkpoint_every",
                "freeze",
                "optimizer",
                "normalise_step",
                "quiet_only",
                "node_value",
                "target_clip",
                "objective",
                "step_decay",
                "init_scale",
                "tt_bits",
                "model",
                "replay_size",
                "batch_size",
                "tree_nodes",
                "momentum",
                "replay_steps",
            )
            if getattr(args, name) is not None
        }
        if network:  # what a network run is unless told otherwise
            overrides.setdefault("algorithm", NETWORK_ALGORITHM)
            overrides.setdefault("feature_set", "bitboard")
            overrides.setdefault("objective", "soft-cross-entropy")
        if "freeze" in overrides:
            overrides["freeze"] = [f for f in overrides["freeze"] if f != "none"]
        if "nodes" in overrides or "clock" in overrides:
            overrides.setdefault("depth", None)
        config = dataclasses.replace(config, **overrides)
    bar = tqdm(total=config.games or None, unit="game", dynamic_ncols=True)

    def on_game(summary, state) -> None:  # type: ignore[no-untyped-def]
        bar.total = max(bar.total or 0, state.games)
        bar.n = state.games
        nps = summary.nodes / summary.seconds if summary.seconds else 0
        bar.set_postfix_str(
            f"+{state.wins} ={state.draws} -{state.losses} |delta| "
            f"{summary.mean_abs_delta:.1f} {nps / 1000:.0f}k nps"
        )
        bar.refresh()

    try:
        limit = args.minutes * 60 if args.minutes is not None else None
        if args.actors == 1 and args.backend == "local":
            state = train(
                config, run_dir, resume=bool(args.resume), on_game=on_game, time_limit=limit
            )
        else:
            from treestrap.distributed.learner import train_distributed

            state = train_distributed(
                config,
                run_dir,
                actors=args.actors,
                backend=args.backend,
                address=args.address,
                resume=bool(args.resume),
                on_game=on_game,
                time_limit=limit,
                publish_every=args.publish_every,
            )
    except ValueError as exc:
        bar.close()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # The command line prints the file and the reason; the run stays resumable.
        bar.close()
        if (Path(run_dir) / "config.json").is_file():
            exc.add_note(f"the run is kept: resume with  treestrap train --resume {run_dir}")
        raise
    except KeyboardInterrupt:
        bar.close()
        print(f"interrupted: resume with  treestrap train --resume {run_dir}", file=sys.stderr)
        return 130
    bar.close()
    print(
        f"{state.games} games: +{state.wins} ={state.draws} -{state.losses}; weights in "
        f"{run_dir}/weights.npz"
    )
    return 0

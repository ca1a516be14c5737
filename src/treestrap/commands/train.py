"""``treestrap train``: a training run with a progress bar, or the resumption of one.

The parser is made from the option table (:mod:`treestrap.training.options`) and the
presets, both free of numba, so that ``treestrap train --help`` stays instant; the run
is imported inside the handler.
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
from treestrap.games.registry import game_facts, game_names
from treestrap.option import LINEAR, NETWORK, Option, model_kind
from treestrap.training.options import (
    NETWORK_DEFAULTS,
    NETWORK_OPTIONS,
    TRAIN_OPTIONS,
)
from treestrap.training.presets import PRESETS

#: The options of the table that ``treestrap train`` has flags for, in its order.
FLAGGED_OPTIONS = tuple(option for option in TRAIN_OPTIONS if option.flag)


def _at_least_one(text: str) -> int:
    return int_at_least(1, text)


def _add_option(parser: Any, option: Option) -> None:
    """``option``'s flag; every value defaults to None (not given), so that a preset's
    or a resumed run's value stays unless the command line gives another."""
    settings: dict[str, Any] = {"dest": option.name}
    given = option.value_type
    if given is bool:
        settings.update(action="store_true", default=None)
    elif given is list:
        settings["action"] = "append"
    elif option.at_least_one:
        settings["type"] = _at_least_one
    elif given is not str:
        settings["type"] = given
    if option.choices is not None:
        settings["choices"] = list(option.choices)
    if option.metavar is not None:
        settings["metavar"] = option.metavar
    if option.help_text is not None:
        settings["help"] = option.help_text
    parser.add_argument(option.flag, **settings)


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
    t.add_argument(
        "--out", metavar="RUN_DIR", help="new run directory (default: runs/ALGORITHM-TIME)"
    )
    t.add_argument("--resume", metavar="RUN_DIR", help="continue a stopped run")
    t.add_argument("--preset", choices=list(PRESETS), help=preset_help)
    net = t.add_argument_group(
        "networks (Serban 2014, Algorithm 7)",
        "--model trains a network on the bitboard inputs by mini-batches from a replay "
        "set of minimax-tree positions (algorithm treestrap-mm, the default; --depth caps "
        "the trees, --minimax-nodes bounds them), or with --algorithm treestrap-ab of "
        "the alpha-beta's table entries with their bounds and a one-sided loss (--depth "
        "or --nodes); --init random or a network file of the same layers; --step-size "
        "is the learning rate, default 0.01",
    )
    for option in FLAGGED_OPTIONS:
        _add_option(net if option.kinds == (NETWORK,) else t, option)
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
            return model_kind(saved_config(Path(args.resume), 0).model) == NETWORK
        except (OSError, ValueError):
            return False  # the run itself says what is wrong with it
    model = args.model or PRESETS.get(args.preset or "", {}).get("model")
    if model is None or model_kind(model) == LINEAR:
        given = [
            option.flag
            for option in NETWORK_OPTIONS
            if option.name != "model" and getattr(args, option.name) is not None
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
        # The run's own config.json decides, but for where it reports (--tensorboard).
        config = TrainConfig(
            games=args.games or _saved_games(run_dir), tensorboard=args.tensorboard
        )
    else:
        config = TrainConfig()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        preset = PRESETS.get(args.preset or "", {})
        model = args.model or preset.get("model", "linear")
        name = model.replace(":", "") if network else args.algorithm or config.algorithm
        run_dir = args.out or f"runs/{name}-{stamp}"
        print(f"run directory: {run_dir}")
        if args.preset:
            config = apply_preset(config, args.preset)
        overrides = {
            option.name: getattr(args, option.name)
            for option in FLAGGED_OPTIONS
            if getattr(args, option.name) is not None
        }
        # The game's defaults first (Connect Four: its features, no chess tempo to freeze).
        if overrides.get("game") in game_names():  # an unknown one: the config says so
            for field, value in game_facts(overrides["game"]).train_defaults.items():
                overrides.setdefault(field, value)
        if network:  # what a network run is unless told otherwise (or its preset)
            for field, value in NETWORK_DEFAULTS.items():
                if field not in preset:
                    overrides.setdefault(field, value)
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

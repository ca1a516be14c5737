"""``treestrap weights show|preset|random-perspective|average``: inspect a weight file,
or write a preset one, a perspective network made without data, or the mean of files.

The evaluation layer and the report are imported inside the handlers so that building
the CLI stays instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from treestrap.commands.arguments import int_at_least
from treestrap.evaluation.preset_names import BOOTSTRAP_PRESETS, NETWORK_PRESETS, PRESET_NAMES


def _non_negative_int(text: str) -> int:
    return int_at_least(0, text)


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def add_parser(sub: Any) -> None:
    w = sub.add_parser(
        "weights",
        help="inspect weight files and write preset ones",
        description="Inspect a weight file (largest weights, per-block summary, "
        "piece-square table and network plots) or write a preset one to start from.",
    )
    wsub = w.add_subparsers(dest="weights_command", metavar="ACTION", required=True)
    show = wsub.add_parser(
        "show",
        help="print a weight file's largest weights and per-block summary (chess or Connect Four)",
        description="Print the header and metadata, the material weights (meep), the N "
        "weights of largest magnitude and per-block statistics of a weight file.",
    )
    show.add_argument("file", metavar="FILE", help="weight file (.npz), or a shipped preset's name")
    show.add_argument(
        "--top",
        type=_non_negative_int,
        default=25,
        metavar="N",
        help="how many of the largest weights to list (default 25)",
    )
    show.add_argument(
        "--group",
        metavar="PREFIX",
        help="list only weights whose name starts with PREFIX (e.g. material/, psqt/endgame/)",
    )
    show.add_argument(
        "--plot",
        metavar="OUT.png",
        help="also save a picture: a linear file's piece-square tables as 8x8 boards, or a "
        "network's first-layer weights of its most important hidden units as 12 boards each",
    )
    show.add_argument(
        "--units",
        type=_positive_int,
        metavar="K",
        help="network pictures: how many hidden units to draw (default 8)",
    )
    show.set_defaults(func=run_show)
    preset = wsub.add_parser(
        "preset",
        help="write a preset weight file: hand-set, random or a shipped one",
        description="Write a preset weight file: the hand-set baseline (textbook values, "
        "pawn = 100), small random weights, or a shipped file made by the tools from "
        "random weights by self-play (learned: linear TreeStrap weights; self-play-net: "
        f"a hybrid network; {', '.join(BOOTSTRAP_PRESETS)}: the bootstrap pipeline's "
        "perspective networks), "
        "with its provenance chain in the metadata.",
    )
    preset.add_argument("name", choices=list(PRESET_NAMES), help="which preset")
    preset.add_argument("out", metavar="OUT", help="weight file to write (.npz)")
    preset.add_argument(
        "--feature-set", choices=["meep", "bitboard"], default="meep", help="(default meep)"
    )
    preset.add_argument("--seed", type=int, help="random preset: seed (default 0)")
    preset.set_defaults(func=run_preset)
    perspective = wsub.add_parser(
        "random-perspective",
        help="write a perspective network (NNUE-style) with random or materialistic weights",
        description="Write a perspective network (768 -> N) x 2 -> 1 made without data: "
        "random weights, or with --material weights that score about the hand-set "
        "material plus seeded noise (searches with random weights explode). For checks "
        "and speed measurements, not for play.",
    )
    perspective.add_argument("out", metavar="OUT", help="weight file to write (.npz)")
    perspective.add_argument("--width", type=_positive_int, default=256, help="N (default 256)")
    perspective.add_argument("--activation", choices=["crelu", "screlu"], default="crelu")
    perspective.add_argument("--buckets", type=_positive_int, default=1, help="by piece count (1)")
    perspective.add_argument("--seed", type=int, default=0, help="(default 0)")
    perspective.add_argument(
        "--material", action="store_true", help="score about the hand-set material"
    )
    perspective.set_defaults(func=run_random_perspective)
    average = wsub.add_parser(
        "average",
        help="write the mean of linear or n-tuple weight files of one shape",
        description="Write the mean of weight files that share their model, shape and "
        "inputs (linear weights, or n-tuple tables over the same tuples; networks do not "
        "average), with a provenance record whose parents are the files.",
    )
    average.add_argument(
        "files", nargs="+", metavar="FILE", help="weight files (.npz), two or more"
    )
    average.add_argument("--out", required=True, metavar="OUT", help="weight file to write (.npz)")
    average.set_defaults(func=run_average)


def _chain(model: Any, game: str) -> str:
    """The file's provenance chain, each hash checked where it can be."""
    from treestrap.evaluation.provenance import stored_weights
    from treestrap.reports.provenance import provenance_lines

    lines = provenance_lines(model.metadata, stored_weights(model), game=game)
    return "\n" + "\n".join(lines)


def _shipped_file(name: str) -> str:
    """A shipped preset's file in the package, for ``weights show PRESET`` (chess's, or
    another game's by its facts); any other name as it is (a file a preset's name does
    not shadow)."""
    from importlib.resources import files

    from treestrap.games.registry import shipped_preset_file

    if Path(name).exists():
        return name
    shipped = shipped_preset_file(name)
    return name if shipped is None else str(files("treestrap.evaluation.data") / shipped)


def run_show(args: argparse.Namespace) -> int:
    from treestrap.evaluation.weight_file_format import WeightFileError, read_weight_file
    from treestrap.games.registry import DEFAULT_GAME, game_facts, get_game

    name = args.file  # a preset's title is its name, not where the package lies
    args.file = _shipped_file(name)
    try:
        facts = game_facts(read_weight_file(Path(args.file))[0].get("game", DEFAULT_GAME))
        if args.plot and not facts.weights_plot:
            raise ValueError(f"--plot draws chess weight files, not {facts.title}")
        model = get_game(facts.name).load_model(args.file)
        report = _function(facts.weights_report)(model, args.top, args.group)
        written = None
        if args.plot:  # before any output: a picture it cannot draw is one error line
            plot = _function(facts.weights_plot)
            written = plot(model, args.plot, title=name, units=args.units)
        print(report)
        print(_chain(model, facts.name))
        if written is not None:
            print(f"\nwrote {written}")
    except (WeightFileError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _function(reference: str) -> Any:
    """The function a game's facts name as ``"module:function"``."""
    from importlib import import_module

    module, _, name = reference.partition(":")
    return getattr(import_module(module), name)


def run_preset(args: argparse.Namespace) -> int:
    from treestrap.evaluation.presets import (
        hand_set_model,
        learned_model,
        preset_model,
        random_model,
    )
    from treestrap.evaluation.provenance import KEY as PROVENANCE
    from treestrap.evaluation.provenance import preset_provenance
    from treestrap.evaluation.weights import save_weights

    if args.name != "random" and args.seed is not None:
        print("error: --seed only applies to the random preset", file=sys.stderr)
        return 2
    if args.name == "hand-set":
        model = hand_set_model(args.feature_set)
    elif args.name == "learned":
        if args.feature_set != "meep":
            print("error: the learned preset is for the meep feature set", file=sys.stderr)
            return 2
        model = learned_model()
    elif args.name in NETWORK_PRESETS:
        if args.feature_set != "meep":
            print(
                f"error: the {args.name} preset is a network; --feature-set does not apply",
                file=sys.stderr,
            )
            return 2
        net = preset_model(args.name)
        net.metadata[PROVENANCE] = preset_provenance(args.name, net)
        try:
            net.save(args.out)
        except OSError as exc:
            print(f"error: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        print(f"wrote {args.name} ({net.describe()} network) to {args.out}")
        return 0
    else:
        model = random_model(args.feature_set, seed=args.seed or 0)
    model.metadata = {
        **model.metadata,
        PROVENANCE: preset_provenance(args.name, model, args.seed or 0),
    }
    try:
        save_weights(model, args.out)
    except OSError as exc:
        # Name the file asked for, not the temporary one the atomic save renames.
        print(f"error: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    fs = model.feature_set
    print(f"wrote {args.name} {fs.name} weights ({fs.size}, layout {fs.layout_hash}) to {args.out}")
    return 0


def run_random_perspective(args: argparse.Namespace) -> int:
    from treestrap.evaluation.perspective_random import material_perspective, random_perspective
    from treestrap.evaluation.provenance import KEY as PROVENANCE

    make = material_perspective if args.material else random_perspective
    try:
        model = make(args.width, args.seed, args.activation, args.buckets)
        model.metadata[PROVENANCE] = _perspective_provenance(model, args)
        model.save(args.out)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {model.describe()} ({model.spec}) to {args.out}")
    return 0


def _perspective_provenance(model: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The record of a perspective network drawn by ``weights random-perspective``: a
    random root (with ``--material``, noise around the hand-set material; the file's
    ``preset`` says which)."""
    from treestrap.evaluation import provenance as P

    spread = model.metadata.get("scale", model.metadata.get("noise", 1.0))
    root = P.random_parent("drawn", args.seed, spread, model.weights)
    if args.material:  # noise around a hand-written evaluation: the chain says so itself
        root.update(around="the hand-set material", self_play_only=False)
    record = P.tool_record("treestrap weights random-perspective", 0.0)
    record.update(sha256=P.weights_sha256(model.weights), parents=[root])
    record["self_play_only"] = P.chain_self_play_only([root])
    return record


def run_average(args: argparse.Namespace) -> int:
    from treestrap.evaluation.weight_average import average_weight_files

    try:
        record = average_weight_files([Path(f) for f in args.files], Path(args.out))
    except (ValueError, OSError) as exc:
        print(f"treestrap weights average: {exc}", file=sys.stderr)
        return 2
    only = "yes" if record["self_play_only"] else "no"
    print(f"wrote {args.out}: the mean of {len(args.files)} files, self-play only: {only}")
    return 0

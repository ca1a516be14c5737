"""``treestrap distill``: fit a network to a teacher engine's search scores.

``label`` scores the positions of PGN games with the teacher's tournament search at a
fixed depth, in chunks that a rerun keeps (so it resumes); ``fit`` trains a
clipped-ReLU network on the ``bitboard`` inputs to those scores and writes a network
file that ``treestrap uci --weights``, tournaments and ``treestrap train --init`` take.
See :mod:`treestrap.distill`.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from typing import Any

from treestrap.commands.arguments import int_at_least, number
from treestrap.commands.interrupts import terminate_as_interrupt
from treestrap.distill.game_sources import FILTER_HELP


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def _positive_float(text: str) -> float:
    value = number(text, float, "a number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _share(text: str) -> float:
    value = number(text, float, "a number")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "distill",
        help="fit a network to a teacher engine's search scores of game positions",
        description="Label the positions of PGN games with a teacher's search scores "
        "(label), then fit a clipped-ReLU network on the bitboard inputs to them (fit).",
    )
    steps = p.add_subparsers(dest="step", required=True, metavar="STEP")
    lab = steps.add_parser(
        "label",
        help="score game positions with the teacher's search (resumable)",
        description="Score every distinct position of the games (from ply 8) with the "
        "teacher's tournament search to --depth, in chunks of positions written to "
        "OUT_DIR. Run the same command again to resume.",
    )
    lab.add_argument("games", nargs="+", metavar="GAMES.pgn", help="PGN files")
    lab.add_argument("--out", required=True, metavar="OUT_DIR", help="labels directory")
    lab.add_argument(
        "--teacher", default="learned", help="a preset or weight file (default learned)"
    )
    lab.add_argument("--depth", type=_positive_int, default=5, help="search depth (default 5)")
    lab.add_argument("--jobs", type=_positive_int, default=2, help="processes (default 2)")
    lab.add_argument("--seed", type=int, default=0, help="seed of the positions' order")
    lab.add_argument("--players", default="own", metavar="FILTER", help=FILTER_HELP)
    lab.add_argument("--no-progress", action="store_true", help="no progress bar")
    lab.set_defaults(func=run_label)

    fit = steps.add_parser(
        "fit",
        help="fit a network to labelled positions",
        description="Fit a crelu network (bitboard inputs -> --hidden -> 1) to the "
        "labels by Adam on the soft cross-entropy of the searches' value mapping, each "
        "position also colour-flipped; the last 5% are held out. Prints the RMS error "
        "in centipawns after each epoch.",
    )
    fit.add_argument(
        "labels",
        nargs="+",
        metavar="LABELS_DIR",
        help="directories of distill label (several are joined, each holding out its own last 5%%)",
    )
    fit.add_argument("--out", required=True, metavar="NET.npz", help="network file to write")
    fit.add_argument("--hidden", type=_positive_int, default=256, help="hidden units (256)")
    fit.add_argument("--epochs", type=_positive_int, default=8, help="epochs (default 8)")
    fit.add_argument("--batch", type=_positive_int, default=1024, help="batch size (1024)")
    fit.add_argument("--lr", type=_positive_float, default=1e-3, help="Adam's step (0.001)")
    fit.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    fit.add_argument(
        "--linear-part",
        metavar="WEIGHTS",
        help="fit a hybrid: the network as a residual on top of these linear weights "
        "(a preset or file), which the network file carries",
    )
    fit.add_argument(
        "--all-positions",
        action="store_true",
        help="fit every labelled position, not only the quiet ones (not in check, and "
        "the teacher's quiescence search stands pat)",
    )
    fit.add_argument(
        "--result-weight",
        type=_share,
        default=0.0,
        metavar="W",
        help="mix the games' results into the targets: (1 - W) * P(search score) + W * "
        "result (default 0: the search scores alone)",
    )
    fit.add_argument(
        "--fit-linear",
        action="store_true",
        help="fit the linear part's weights too, starting from --linear-part's, with the "
        "network (the file carries the fitted ones)",
    )
    fit.add_argument("--threads", type=_positive_int, help="PyTorch threads")
    fit.set_defaults(func=run_fit)


def _label_shard(
    out: str, epds: list[str], depth: int, teacher: str, k: int, n: int, chunk: int, parent: int
) -> None:
    from treestrap.distill.labels import label_positions
    from treestrap.play.gamepool import die_with_parent

    die_with_parent(parent)  # a SIGKILL of the command skips its clean-up

    label_positions(epds, out, depth, teacher, shard=k, shards=n, chunk=chunk)


def run_label(args: argparse.Namespace) -> int:
    import multiprocessing

    from tqdm import tqdm

    from treestrap.distill import labels as distill_labels
    from treestrap.evaluation.preset_names import PRESET_NAMES

    if args.teacher not in PRESET_NAMES:
        from treestrap.evaluation.weight_files import load_weights

        try:
            load_weights(args.teacher)
        except (OSError, ValueError) as exc:
            print(f"error: teacher {args.teacher!r}: {exc}", file=sys.stderr)
            return 2
    for path in args.games:
        try:
            open(path, "rb").close()
        except OSError as exc:
            print(f"error: {path}: {exc.strerror}", file=sys.stderr)
            return 2
    try:
        epds = distill_labels.prepare(
            args.out, args.games, args.depth, args.teacher, args.seed, players=args.players
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    chunk = int(distill_labels.label_settings(args.out).get("chunk", distill_labels.CHUNK))
    total = distill_labels.chunk_count(len(epds), chunk)
    # A kill stops the workers too, as Ctrl-C does: they would otherwise run on alone.
    context = multiprocessing.get_context("spawn")
    jobs = [
        context.Process(
            target=_label_shard,
            args=(args.out, epds, args.depth, args.teacher, k, args.jobs, chunk, os.getpid()),
        )
        for k in range(args.jobs)
    ]
    bar = tqdm(total=total, unit="chunk", disable=args.no_progress)
    with terminate_as_interrupt():
        try:
            print(f"{len(epds)} positions in {total} chunks of {chunk}", flush=True)
            for job in jobs:
                job.start()
            while any(job.is_alive() for job in jobs):
                bar.update(distill_labels.labelled_chunks(args.out) - bar.n)
                time.sleep(1.0)
        except KeyboardInterrupt:
            for job in jobs:
                if job.is_alive():
                    job.terminate()
            bar.close()
            print("interrupted: run the same command again to resume", file=sys.stderr)
            return 130
    bar.update(distill_labels.labelled_chunks(args.out) - bar.n)
    bar.close()
    if any(job.exitcode != 0 for job in jobs):
        print("error: a labelling process failed", file=sys.stderr)
        return 1
    print(f"labelled {distill_labels.labelled_chunks(args.out)} of {total} chunks in {args.out}")
    return 0


def run_fit(args: argparse.Namespace) -> int:
    import torch

    from treestrap.distill import fit as distill_fit
    from treestrap.distill import labels as distill_labels
    from treestrap.distill.provenance import fit_provenance
    from treestrap.evaluation.network_weights import save_network
    from treestrap.evaluation.provenance import KEY as PROVENANCE

    if args.threads:
        torch.set_num_threads(args.threads)
    linear = None
    if args.linear_part:
        try:
            part = distill_labels.named_model(args.linear_part)
        except (OSError, ValueError) as exc:
            print(f"error: --linear-part {args.linear_part}: {exc}", file=sys.stderr)
            return 2
        if part.is_network:
            print(f"error: --linear-part {args.linear_part} is not linear", file=sys.stderr)
            return 2
        linear = part
    if args.fit_linear and linear is None:
        print("error: --fit-linear needs --linear-part (the starting weights)", file=sys.stderr)
        return 2
    start = time.process_time()
    parts, bases, teachers = [], [], []
    for directory in args.labels:
        try:
            part_labels = distill_labels.load_labels(directory)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        settings = distill_labels.label_settings(directory)
        teacher = str(settings.get("teacher", "learned"))
        teachers.append((teacher, settings.get("depth")))
        print(f"{directory}: {len(part_labels.white_cp)} positions", flush=True)
        if not args.all_positions:
            quiet = distill_fit.quiet_mask(
                directory, distill_labels.named_model(teacher), part_labels.index
            )
            part_labels = part_labels.subset(quiet)
            print(f"{directory}: {len(part_labels.white_cp)} quiet for {teacher}", flush=True)
        parts.append(part_labels)
        if linear is not None and not args.fit_linear:
            bases.append(distill_fit.linear_scores(directory, linear, part_labels.index))
    labels, linear_cp = distill_labels.join_labels(parts, bases=bases or None)
    linear_rows = None
    if args.fit_linear and linear is not None:
        from treestrap.distill.sparse_features import linear_features

        epds = distill_labels.joined_positions(args.labels, parts)
        linear_rows = linear_features(epds, linear.feature_set)
        print(f"linear features: {len(linear_rows.idx)} pairs", flush=True)
    if args.result_weight and labels.white_result is None:
        pairs = zip(args.labels, parts, strict=True)
        missing = [d for d, part in pairs if part.white_result is None]
        print(
            f"error: {', '.join(missing)}: no game results; run the same distill label "
            "command again to add them",
            file=sys.stderr,
        )
        return 2
    one_teacher = len(set(teachers)) == 1
    model, reports = distill_fit.fit_network(
        labels,
        args.hidden,
        args.epochs,
        args.batch,
        args.lr,
        seed=args.seed,
        progress=True,
        linear=linear,
        linear_cp=linear_cp,
        result_weight=args.result_weight,
        linear_rows=linear_rows,
    )
    model.metadata.update(
        {
            "trained_by": "treestrap distill fit",
            "command": "treestrap " + shlex.join(sys.argv[1:]),
            "teacher": teachers[0][0] if one_teacher else [t for t, _ in teachers],
            "teacher_depth": teachers[0][1] if one_teacher else [d for _, d in teachers],
            "linear_part": args.linear_part,
            "quiet_only": not args.all_positions,
            "result_weight": args.result_weight,
            "linear_part_fitted": args.fit_linear,
            "positions": len(labels.white_cp),
            "held_out_rms_cp": round(reports[-1].held_out_cp, 1),
            "cpu_seconds_fit": round(time.process_time() - start, 1),
        }
    )
    model.metadata[PROVENANCE] = fit_provenance(
        args.labels,
        [len(part.white_cp) for part in parts],
        time.process_time() - start,
        model,
        args.linear_part,
        linear,
    )
    save_network(model, args.out)
    print(f"wrote {args.out}")
    return 0

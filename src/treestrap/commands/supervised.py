"""``treestrap supervised train|report|convert``: learn the winner from a dataset of
positions (issue 13, Serban 2014 chapters 3 and 6), report runs beside the thesis, turn
a logistic regression into engine weights.

Only argparse at import time: PyTorch, the models and the dataset reader are imported by
the handlers, so ``treestrap --help`` stays instant and a user without the ``torch``
extra gets the install command instead of an import error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from treestrap.commands.arguments import int_at_least, number


def _positive_int(text: str) -> int:
    return int_at_least(1, text)


def _float(text: str) -> float:
    return number(text, float, "a number")


def _int_list(text: str) -> tuple[int, ...]:
    """``10`` or ``20,20``."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 20,20, got {text!r}") from None
    if any(v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"every value must be >= 1, got {text!r}")
    return values


def _conv(text: str) -> tuple[int, ...]:
    """``3x3`` or ``5x5,3x3`` -> kernel sizes."""
    kernels = []
    for part in text.split(","):
        a, sep, b = part.strip().partition("x")
        if not sep or a != b or not a.isdigit() or int(a) < 1:
            raise argparse.ArgumentTypeError(
                f"expected square kernels like 3x3 or 5x5,3x3, got {text!r}"
            )
        kernels.append(int(a))
    return tuple(kernels)


def add_parser(sub: Any) -> None:
    s = sub.add_parser(
        "supervised",
        help="learn the winner from positions of game collections (Serban 2014)",
        description="Train PyTorch models to predict a game's result from its positions "
        "(a dataset from `treestrap dataset build`), report runs beside Serban's figures, "
        "and convert a logistic regression into engine weights.",
    )
    ssub = s.add_subparsers(dest="supervised_command", metavar="ACTION", required=True)

    t = ssub.add_parser(
        "train",
        help="train a model (several trials), resumable",
        description="Mini-batch SGD (momentum, learning-rate decay or Nesterov, L1) with "
        "early stopping on the validation split; each trial in RUN_DIR/trial-K with "
        "metrics.jsonl, checkpoints and its test-split result.",
    )
    t.add_argument("--data", required=True, metavar="DATA_DIR", help="dataset directory")
    t.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory to write")
    t.add_argument(
        "--model",
        choices=["logreg", "mlp", "convnet", "moe", "stockfish"],
        default="logreg",
        help="(default logreg)",
    )
    t.add_argument(
        "--features",
        choices=["bitboard", "meep", "bitboard+meep", "stockfish"],
        help="inputs (default bitboard; stockfish for --model stockfish)",
    )
    t.add_argument(
        "--hidden",
        type=_int_list,
        default=(10,),
        metavar="N[,N]",
        help="MLP hidden layer widths (default 10)",
    )
    t.add_argument(
        "--conv",
        type=_conv,
        default=(5, 3),
        metavar="KxK[,KxK]",
        help="ConvNet convolutions: 3x3 or 5x5,3x3 (default 5x5,3x3)",
    )
    t.add_argument(
        "--maps",
        type=_int_list,
        metavar="N[,N]",
        help="ConvNet feature maps per convolution (default 5, or 5,10)",
    )
    t.add_argument(
        "--fc",
        type=_positive_int,
        default=100,
        metavar="N",
        help="ConvNet fully connected units (default 100)",
    )
    t.add_argument(
        "--experts",
        type=_positive_int,
        default=2,
        metavar="K",
        help="mixture of experts: experts (default 2)",
    )
    t.add_argument(
        "--moe-training",
        choices=["sgd", "em"],
        default="sgd",
        help="mixture of experts: SGD on the likelihood or EM-based SGD "
        "(Algorithm 5) (default sgd)",
    )
    t.add_argument(
        "--m-steps",
        type=_positive_int,
        default=1,
        metavar="N",
        help="EM: gradient steps per E-step (default 1)",
    )
    t.add_argument(
        "--batch-size",
        type=_positive_int,
        default=100,
        metavar="N",
        help="positions per mini-batch (default 100)",
    )
    t.add_argument("--lr", type=_float, default=0.01, help="initial learning rate (default 0.01)")
    t.add_argument("--momentum", type=_float, default=0.0, help="momentum (default 0)")
    t.add_argument(
        "--lr-decay",
        type=_float,
        default=0.0,
        metavar="LAMBDA",
        help="lr_t = lr / (1 + lr * LAMBDA * t) at epoch t (default 0)",
    )
    t.add_argument("--nesterov", action="store_true", help="Nesterov's accelerated gradient")
    t.add_argument("--l1", type=_float, default=0.0, help="L1 penalty on weights (default 0)")
    t.add_argument("--epochs", type=_positive_int, default=10, help="most epochs (default 10)")
    t.add_argument(
        "--patience",
        type=_positive_int,
        metavar="N",
        help="stop after N epochs without a better validation accuracy",
    )
    t.add_argument(
        "--trials",
        type=_positive_int,
        default=1,
        metavar="K",
        help="trials with seeds SEED..SEED+K-1 (default 1)",
    )
    t.add_argument("--seed", type=int, default=0, help="seed of the first trial (default 0)")
    t.add_argument(
        "--no-rollout",
        action="store_true",
        help="drop the positions that rollout completion appended",
    )
    t.add_argument(
        "--mean-subtract",
        action="store_true",
        help="subtract the training mean of every input (Serban 6.5)",
    )
    t.add_argument("--threads", type=_positive_int, metavar="N", help="PyTorch threads")
    t.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in RUN_DIR from its last finished epoch",
    )
    t.set_defaults(func=run_train)

    r = ssub.add_parser(
        "report",
        help="test accuracy, contingency tables and plots of runs, beside Serban's figures",
        description="For each run: NAME test accuracy MEAN% +- SD (N trials) and the 3x3 "
        "contingency table; then a table of all runs beside Serban's figures and the "
        "most-frequent-class baseline of our test split; PNG plots of accuracy against "
        "move number and against epoch.",
    )
    r.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories")
    r.add_argument(
        "--out",
        metavar="REPORT_DIR",
        help="where to write report.txt and the plots (default FIRST_RUN/report)",
    )
    r.set_defaults(func=run_report)

    c = ssub.add_parser(
        "convert",
        help="a logistic regression or MLP as an engine weight file",
        description="Write the engine weight file of a trained model: a logistic regression "
        "on meep or bitboard features as linear weights, an MLP on bitboard features as a "
        "network the compiled searches evaluate; both score "
        "cp = (400 / ln 10) * (z_win - z_loss). A run directory converts its trial of best "
        "validation accuracy.",
    )
    c.add_argument("source", metavar="RUN_DIR_OR_CHECKPOINT")
    c.add_argument("--out", required=True, metavar="WEIGHTS.npz", help="weight file to write")
    c.add_argument(
        "--network",
        action="store_true",
        help="write a bitboard logistic regression as a network file, not linear weights",
    )
    c.set_defaults(func=run_convert)


def _error(message: object) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def run_train(args: argparse.Namespace) -> int:
    from treestrap.supervised.torch_required import TorchMissing

    try:
        return _train(args)
    except TorchMissing as exc:
        return _error(exc)


def _train(args: argparse.Namespace) -> int:
    from treestrap.supervised.data import load_data
    from treestrap.supervised.errors import SupervisedError
    from treestrap.supervised.inputs import get_encoding
    from treestrap.supervised.torch_required import require_torch
    from treestrap.supervised.train import TrainConfig, train_run, validate

    torch = require_torch()
    features = args.features or ("stockfish" if args.model == "stockfish" else "bitboard")
    maps = args.maps or (5, 10)[: len(args.conv)]
    config = TrainConfig(
        model=args.model,
        features=features,
        hidden=args.hidden,
        kernels=args.conv,
        maps=maps,
        fc=args.fc,
        experts=args.experts,
        moe_training=args.moe_training,
        m_steps=args.m_steps,
        batch_size=args.batch_size,
        lr=args.lr,
        momentum=args.momentum,
        lr_decay=args.lr_decay,
        nesterov=args.nesterov,
        l1=args.l1,
        epochs=args.epochs,
        patience=args.patience,
        trials=args.trials,
        seed=args.seed,
        rollout=not args.no_rollout,
        mean_subtract=args.mean_subtract,
    )
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        validate(config)
        data = load_data(args.data, get_encoding(features), rollout=config.rollout)
        print(
            f"{config.spec().describe()} on {features}: {len(data.train)} training, "
            f"{len(data.validation)} validation, {len(data.test)} test positions",
            flush=True,
        )
        results = train_run(
            data,
            config,
            args.out,
            resume=args.resume,
            progress=sys.stderr.isatty(),
            report=lambda line: print(line, flush=True),
        )
    except (SupervisedError, OSError) as exc:
        return _error(exc)
    accuracies = [r.result["test_accuracy"] for r in results]
    mean = sum(accuracies) / len(accuracies)
    print(f"{args.out}: mean test accuracy {100 * mean:.2f}% over {len(accuracies)} trial(s)")
    return 0


def run_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from treestrap.supervised.errors import SupervisedError
    from treestrap.supervised.torch_required import TorchMissing

    out = Path(args.out) if args.out else Path(args.runs[0]) / "report"
    try:
        from treestrap.supervised.report import report

        text, written = report(args.runs, out)
    except (SupervisedError, TorchMissing, OSError) as exc:
        return _error(exc)
    print(text, end="")
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def run_convert(args: argparse.Namespace) -> int:
    from treestrap.supervised.torch_required import TorchMissing

    try:
        from treestrap.supervised.convert import convert
        from treestrap.supervised.errors import SupervisedError

        try:
            model = convert(args.source, network=args.network)
            model.save(args.out)
        except (SupervisedError, OSError) as exc:
            return _error(exc)
    except TorchMissing as exc:
        return _error(exc)
    fs = model.feature_set
    meta = model.metadata
    what = f"{fs.name} weights ({fs.size}"
    if model.is_network:
        what = f"{model.describe()} network on {fs.name} ({model.weights.size} parameters"
    print(
        f"wrote {what}, layout {fs.layout_hash}) from {meta['run']}/"
        f"{meta['trial']} epoch {meta['epoch']} to {args.out} "
        f"({meta['centipawns_per_logit']:.2f} centipawns per logit)"
    )
    return 0

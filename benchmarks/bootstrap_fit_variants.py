"""Fit settings compared on a bootstrap run's own data: held-out errors, and a gate
against the run's best player.

    python benchmarks/bootstrap_fit_variants.py runs/zero --round 4 base buckets=8 \
        activation=screlu width=512 --out runs/fit-variants [--gate NAME ...]
    python benchmarks/bootstrap_fit_variants.py runs/zero-on --round 3 --held-out 10 \
        chunks=44 chunks=88 chunks=175 base --out runs/fit-data   # a learning curve
    python benchmarks/bootstrap_fit_variants.py runs/zero-fast --round 4 --from-best \
        result_weight_rise=0.5 --out runs/rise-fit --gate result_weight_rise=0.5 --gate-games 300

Each variant is the run's fit plan (``RUN/bootstrap.json``) with the settings given
(``key=value`` pairs joined by commas; ``base`` changes nothing), fitted fresh to the
data round ``--round``'s fit reads (its chunks and those of the rounds before it, the
round's last chunk held out, or its last K with ``--held-out K``), so the variants see
the same positions in the same order. With ``--from-best`` each starts, as the run's own
fit does, from the network that was the run's best player when round ``--round`` began
(so ``base`` then gives that round's candidate again).
A variant already saved in ``OUT`` is read back and measured, not fitted again, so a
killed benchmark started again goes on where it stopped.
``chunks=K`` fits to the last K of those training chunks only (the newest, nearest the
held-out one), which draws a learning curve: held-out error against positions.
Printed: a table of held-out loss, held-out RMS centipawns and CPU seconds, each
network saved as ``OUT/NAME.npz``. ``--gate NAME`` then plays that variant against the
run's best player by the run's gate (a pentanomial SPRT at the budget's clock; games in
``OUT/gate-NAME``), which is how a variant earns a place in a budget: a lower held-out
loss is a hint, a won gate the figure.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

from treestrap.bootstrap.budgets import Budget
from treestrap.bootstrap.gate import run_gate
from treestrap.bootstrap.pipeline import (
    SETTINGS_FILE,
    best_player,
    finished_rounds,
    round_data_files,
)
from treestrap.distill.perspective_fit import (
    PerspectiveFitSettings,
    fit_perspective,
    held_out_errors,
)
from treestrap.distill.position_file import record_count
from treestrap.evaluation.weight_files import load_weights

FIT_FIELDS = {f.name for f in dataclasses.fields(PerspectiveFitSettings)}


def variant_settings(
    base: PerspectiveFitSettings, text: str
) -> tuple[PerspectiveFitSettings, int | None]:
    """``base`` with the ``key=value`` settings of ``text`` (``base``: none), and the
    number of training chunks it keeps (``chunks=K``; None: all)."""
    if text == "base":
        return base, None
    changes: dict[str, object] = {}
    chunks: int | None = None
    for pair in text.split(","):
        key, _, value = pair.partition("=")
        if key == "chunks" and value.isdigit() and int(value) > 0:
            chunks = int(value)
            continue
        if key not in FIT_FIELDS or not value:
            raise SystemExit(f"error: {pair!r}: not KEY=VALUE of {sorted(FIT_FIELDS | {'chunks'})}")
        kind = type(getattr(base, key))
        changes[key] = kind(value)
    return dataclasses.replace(base, **changes), chunks


def best_before(run: Path, number: int) -> Path:
    """The run's best player when round ``number`` began."""
    accepted = [r for r in finished_rounds(run) if r["accepted"] and r["round"] < number]
    if not accepted:
        raise SystemExit(f"error: {run}: no round before {number} has finished")
    return run / accepted[-1]["player_file"]


def positions(files: list[Path]) -> int:
    return sum(record_count(path) for path in files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("variants", nargs="+", help="base | KEY=VALUE[,KEY=VALUE...]")
    ap.add_argument("--round", type=int, required=True, help="the round whose fit data is used")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--gate", action="append", default=[], help="gate this variant (repeat)")
    ap.add_argument(
        "--held-out",
        type=int,
        default=1,
        metavar="K",
        help="hold out the round's last K chunks, not only its last (one chunk is about "
        "50 games: a larger set steadies a learning curve)",
    )
    ap.add_argument(
        "--gate-games", type=int, metavar="N", help="the gate's game limit (default: the run's)"
    )
    ap.add_argument(
        "--from-best",
        action="store_true",
        help="start each fit from the best network before the round, as the run does",
    )
    args = ap.parse_args()
    if args.held_out < 1:
        raise SystemExit("error: --held-out: at least 1")

    budget = Budget.from_json(json.loads((args.run / SETTINGS_FILE).read_text())["budget"])
    base = budget.fit.settings()
    train, held_out = round_data_files(args.run, args.round, budget)
    # the run's own held-out chunk is the last training file's successor
    held_out = train[len(train) - args.held_out + 1 :] + held_out
    train = train[: len(train) - args.held_out + 1]
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        f"{len(train)} training files ({positions(train):,} positions), held out the last "
        f"{len(held_out)} chunks of round {args.round} ({positions(held_out):,} positions)"
    )
    variants = {text: variant_settings(base, text) for text in args.variants}  # errors first
    print("| variant | training positions | held-out loss | held-out RMS (cp) | CPU seconds |")
    print("|---|---|---|---|---|")
    start = load_weights(best_before(args.run, args.round)) if args.from_best else None
    for text, (settings, chunks) in variants.items():
        files = train if chunks is None else train[-chunks:]
        saved = args.out / f"{text}.npz"
        cpu = time.process_time()
        if saved.exists():
            model = load_weights(saved)
            loss, rms = held_out_errors(model, held_out, settings)
            seconds = "(saved)"
        else:
            model, reports = fit_perspective(files, held_out, settings, start=start)
            loss, rms = reports[-1].held_out_loss, reports[-1].held_out_cp
            model.metadata = {"fit": {"settings": dataclasses.asdict(settings), "variant": text}}
            model.save(saved)
            seconds = f"{time.process_time() - cpu:.0f}"
        print(f"| {text} | {positions(files):,} | {loss:.4f} | {rms:.1f} | {seconds} |")
    best = best_player(args.run)
    gate = budget.gate
    if args.gate_games is not None:
        gate = dataclasses.replace(gate, max_games=args.gate_games)
    for text in args.gate:
        result = run_gate(args.out / f"{text}.npz", best, args.out / f"gate-{text}", gate)
        print(f"{text} against {best.relative_to(args.run)}: {result.line()}")
        print(f"  {result.summary}")


if __name__ == "__main__":
    main()

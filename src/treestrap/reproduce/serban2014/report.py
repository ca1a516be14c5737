"""The last stage of a Serban (2014) reproduction: ratings, curve, figures and
``table.txt`` with the starting points, every rating and Serban's two findings."""

from __future__ import annotations

from pathlib import Path

from treestrap.reproduce.serban2014.budgets import (
    ANCHOR_ELO,
    SERBAN_RL_OVER_SL,
    SETTLED,
    SL_LOGREG,
    Budget,
)
from treestrap.reproduce.serban2014.figures import plot_figures
from treestrap.reproduce.serban2014.gauntlets import FOLDERS, finishes, player_name, tournament_dir
from treestrap.reproduce.serban2014.ratings import SerbanResult, rate
from treestrap.reproduce.serban2014.starts import Start
from treestrap.reproduce.stages import read_json, read_timings, write_whole


def _verdict(los: float) -> str:
    if los >= SETTLED:
        return "holds"
    if los <= 1.0 - SETTLED:
        return "reversed"
    return "not settled by these games"


def findings(result: SerbanResult, budget: Budget) -> list[str]:
    """Serban's two findings checked on the fit: each line the Elo difference, the
    likelihood of superiority and a verdict (holds at LOS >= 95%)."""
    table, ref = result.table, result.reference
    lines = []
    los = table.los(ref, SL_LOGREG)
    diff = table.rating(ref).elo - table.rating(SL_LOGREG).elo
    lines.append(
        f"RL LogReg above SL LogReg: {ref} - {SL_LOGREG} = {diff:+.0f} Elo, LOS {100 * los:.1f}%: "
        f"{_verdict(los)} (Serban 7.5: {SERBAN_RL_OVER_SL:+.0f})"
    )
    lines.append(f"MLPs above LogReg (after {budget.games} self-play games, against {ref}):")
    for letter in result.starts["letters"]:
        name = player_name(f"MLP-{letter}", budget.games)
        los = table.los(name, ref)
        diff = table.rating(name).elo - table.rating(ref).elo
        lines.append(
            f"  MLP {letter}: {name} - {ref} = {diff:+.0f} Elo, LOS {100 * los:.1f}%: "
            f"{_verdict(los)}"
        )
    return lines


def format_table(
    result: SerbanResult,
    budget: Budget,
    budget_name: str,
    ends: dict[str, str],
    timings: dict[str, float],
) -> str:
    """``table.txt``: the starting points, every rating, Serban's findings, how the
    tournaments' games ended and the time each stage took."""
    starts = result.starts
    rows = [("SL LogReg", starts["sl-logreg"])]
    rows += [(f"MLP {letter}", starts[name]) for letter, name in starts["letters"].items()]
    trained = [
        f"{Start('', e['model'], e['fraction'], e['epochs']).describe()} "
        f"({e['n_train']:,} positions)"
        for _, e in rows
    ]
    width = max(len(t) for t in trained) + 2
    lines = [
        f"Serban (2014), chapter 7 reproduction, budget {budget_name!r}: {budget.note}",
        "",
        "Supervised starting points (bitboard inputs; test accuracy on held-out games):",
        f"  {'model':<11}{'trained on':<{width}}{'test accuracy':>14}",
    ]
    for (title, entry), text in zip(rows, trained, strict=True):
        lines.append(f"  {title:<11}{text:<{width}}{100 * entry['test_accuracy']:>13.2f}%")
    lines.append(f"  {'most frequent class':<{11 + width}}{100 * starts['baseline']:>13.2f}%")
    lines += [
        "",
        f"Ratings (BayesElo model, one fit of both gauntlets, best RL LogReg {result.reference} "
        f"fixed at {ANCHOR_ELO:.0f}):",
        f"  {'player':<16}{'Elo':>7}  {'95% interval':<16}{'games':>6}{'score':>8}",
    ]
    for p in result.table.players:
        interval = (
            "(anchor)"
            if p.name == result.reference
            else f"[{round(p.lower) + 0}, {round(p.upper) + 0}]"
        )
        lines.append(
            f"  {p.name:<16}{round(p.elo) + 0:>7}  {interval:<16}{p.games:>6}{100 * p.score:>7.1f}%"
        )
    lines += ["", "Serban's findings:"]
    lines += [f"  {line}" for line in findings(result, budget)]
    lines.append("")
    lines += [f"tournament {figure}: {text}" for figure, text in ends.items()]
    if timings:
        spent = ", ".join(f"{stage} {seconds:.0f} s" for stage, seconds in timings.items())
        lines.append(f"time per stage (all invocations): {spent}")
    lines += [f"note: {note}" for note in [*result.notes, budget.caveat] if note]
    return "\n".join(lines) + "\n"


def write_curve(result: SerbanResult, path: Path) -> None:
    """``curve.csv``: every rated checkpoint, by run and games."""
    rows = ["run,games,elo,lower95,upper95"]
    rows += [
        f"{p.label},{p.games},{p.elo:.1f},{p.lower:.1f},{p.upper:.1f}"
        for p in sorted(result.points, key=lambda p: (p.label, p.games))
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def write_report(out: Path, budget: Budget, budget_name: str) -> SerbanResult:
    """Stage 6: ratings, curve, figures and, last, ``table.txt``."""
    result = rate(out)
    result.table.to_csv(out / "ratings.csv")
    result.table.to_json(out / "ratings.json")
    notes = "".join(f"note: {note}\n" for note in result.notes)
    (out / "ratings.txt").write_text(
        result.table.format_table() + "\n" + result.table.format_los() + "\n" + notes,
        encoding="utf-8",
    )
    write_curve(result, out / "curve.csv")
    plot_figures(result, out)
    finisher = bool(read_json(out / "settings.json").get("finish"))
    ends = {
        figure: finishes(tournament_dir(out, figure)).describe(budget.max_plies, finisher)
        for figure in FOLDERS
    }
    text = format_table(result, budget, budget_name, ends, read_timings(out))
    write_whole(out / "table.txt", text)
    return result

"""Distillation: a network fitted to a teacher engine's search scores.

A pure network (no linear part) cannot start from random weights and beat a strong
linear evaluation within a session's budget, but it can start from what that evaluation
and its search already know. This module takes the positions of PGN files (the
project's own training and match games), scores each with the teacher's tournament
search at a fixed depth (so the targets hold more than the teacher's static value), and
fits a clipped-ReLU network on the ``bitboard`` inputs to those scores with the soft
cross-entropy of the searches' value mapping (:mod:`treestrap.evaluation.outcome`).
The result is an ordinary network file, which TreeStrap can refine (``treestrap train
--init``).

Labelling is the costly step (milliseconds a position), so it writes chunks of a fixed
size into a directory and skips the chunks already there: an interrupted run resumes,
and several processes can share the work by ``shard`` and ``shards``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import numpy as np

from treestrap.evaluation.feature_sets.bitboard import BITBOARD_SIZE, SIDE_TO_MOVE
from treestrap.evaluation.network_weights import NetworkModel
from treestrap.evaluation.outcome import CENTIPAWNS_PER_LOGIT
from treestrap.evaluation.provenance import named_parent
from treestrap.evaluation.weights import LinearModel
from treestrap.learn.game_sources import (
    ALL_FILTER,
    OWN_FILTER,
    PlayerFilter,
    game_file_record,
    kept_games,
    player_filter,
)
from treestrap.learn.sparse_features import SparseRows

#: Scores beyond this (mates, decided positions) are clipped: their probability is
#: 0.9999 either way, and a mate's distance means nothing to a static evaluation.
SCORE_CLIP = 1600.0
#: Positions per chunk file.
CHUNK = 20_000
#: The share of rows that a fit holds out.
HELD_OUT = 0.05


#: White's score of a game by its PGN result; other results ("*") score nothing.
WHITE_SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def _game_walk(
    paths: Iterable[str | Path], first_ply: int, keep: PlayerFilter | None = None
) -> Iterator[tuple[str, str]]:
    """(EPD, the game's result) of every unfinished position of the games of ``paths``
    (those ``keep`` lets through) from ply ``first_ply`` on, in file order, repeats
    included."""
    keep = keep or player_filter(ALL_FILTER)
    for path in paths:
        for game in kept_games(path, keep):
            result = game.headers.get("Result", "*")
            board = game.board()
            for ply, move in enumerate(game.mainline_moves(), start=1):
                board.push(move)
                if ply >= first_ply and not board.is_game_over(claim_draw=False):
                    yield board.epd(), result


def _mean_results(
    paths: Iterable[str | Path], first_ply: int, keep: PlayerFilter | None = None
) -> dict[str, float]:
    """White's mean score over the games that reached each distinct position (from ply
    ``first_ply`` on, finished positions left out), keyed in file order; NaN where no
    game with a result reached it. One pass gives both the positions and the results."""
    total: dict[str, float] = {}
    count: dict[str, int] = {}
    for epd, result in _game_walk(paths, first_ply, keep):
        total.setdefault(epd, 0.0)
        count.setdefault(epd, 0)
        if result in WHITE_SCORE:
            total[epd] += WHITE_SCORE[result]
            count[epd] += 1
    return {e: total[e] / count[e] if count[e] else math.nan for e in total}


def game_positions(paths: Iterable[str | Path], first_ply: int = 8) -> list[str]:
    """The distinct positions (EPD: board, side, castling, en passant) of the games of
    ``paths`` from ply ``first_ply`` on, in file order; finished positions left out."""
    return list(dict.fromkeys(epd for epd, _ in _game_walk(paths, first_ply)))


def position_results(
    paths: Iterable[str | Path],
    epds: list[str],
    first_ply: int = 8,
    keep: PlayerFilter | None = None,
) -> np.ndarray:
    """White's mean score in the games of ``paths`` (those ``keep`` lets through) that
    reached each of ``epds`` (from ply ``first_ply`` on); NaN where no game with a
    result reached it."""
    means = _mean_results(paths, first_ply, keep)
    return np.array([means.get(e, math.nan) for e in epds])


def board_row(board: chess.Board) -> np.ndarray:
    """The 769 ``bitboard`` inputs of ``board`` (0/1 bytes): ``piece * 64 + square``
    with white pawn .. king as 0 .. 5 and black's as 6 .. 11, then white to move."""
    row = np.zeros(BITBOARD_SIZE, dtype=np.uint8)
    for square, piece in board.piece_map().items():
        kind = piece.piece_type - 1 + (0 if piece.color == chess.WHITE else 6)
        row[kind * 64 + square] = 1
    if board.turn == chess.WHITE:
        row[SIDE_TO_MOVE] = 1
    return row


@dataclass
class Labels:
    """Positions' input rows (packed 8 to a byte), their scores for white (cp) and
    their lines in the directory's positions file."""

    packed: np.ndarray
    white_cp: np.ndarray
    index: np.ndarray
    #: How many of the last rows a fit holds out (None: its ``held_out`` share).
    held_out_count: int | None = None
    #: White's mean score in the games that reached each position (None: not known).
    white_result: np.ndarray | None = None

    @property
    def rows(self) -> np.ndarray:
        return np.unpackbits(self.packed, axis=1, count=BITBOARD_SIZE)

    def subset(self, keep: np.ndarray) -> Labels:
        result = None if self.white_result is None else self.white_result[keep]
        return Labels(self.packed[keep], self.white_cp[keep], self.index[keep], None, result)


def _chunks(n: int, size: int) -> Iterator[tuple[int, int, int]]:
    for index, start in enumerate(range(0, n, size)):
        yield index, start, min(n, start + size)


def named_model(name: str) -> LinearModel | NetworkModel:
    """A preset by name, or a weight file."""
    from treestrap.evaluation.preset_names import PRESET_NAMES
    from treestrap.evaluation.presets import preset_model
    from treestrap.evaluation.weight_files import load_weights

    return preset_model(name) if name in PRESET_NAMES else load_weights(name)


def label_positions(
    epds: list[str],
    out_dir: str | Path,
    depth: int,
    weights: str = "learned",
    shard: int = 0,
    shards: int = 1,
    chunk: int | None = None,
) -> None:
    """Score ``epds`` with the tournament search of ``weights`` (a preset or file) to
    ``depth`` and write chunk ``i`` (positions ``i * chunk`` on, ``chunk`` default
    :data:`CHUNK`) as ``chunk-i.npz`` in ``out_dir``; this process takes the chunks
    ``i % shards == shard`` not yet written."""
    from treestrap.core.notation import parse_fen
    from treestrap.engine.engine import Engine
    from treestrap.search.timeman import SearchLimits

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = named_model(weights)
    engine = Engine(model.evaluator(), hash_mb=16)
    for index, start, end in _chunks(len(epds), chunk or CHUNK):
        path = out / f"chunk-{index:04d}.npz"
        if index % shards != shard or path.exists():
            continue
        cpu_start = time.process_time()
        rows = np.zeros((end - start, BITBOARD_SIZE), dtype=np.uint8)
        cp = np.zeros(end - start)
        for i, epd in enumerate(epds[start:end]):
            board = chess.Board(epd + " 0 1")
            rows[i] = board_row(board)
            score = engine.go(parse_fen(board.fen()), SearchLimits(depth=depth)).score
            score = max(-SCORE_CLIP, min(SCORE_CLIP, score))
            cp[i] = score if board.turn == chess.WHITE else -score
        tmp = out / f"chunk-{index:04d}.tmp.npz"
        cpu = np.array(time.process_time() - cpu_start)  # the network's provenance adds it up
        packed = np.packbits(rows, axis=1)
        np.savez(tmp, packed=packed, white_cp=cp, index=np.arange(start, end), cpu_seconds=cpu)
        tmp.replace(path)


POSITIONS_FILE = "positions.epd"
SETTINGS_FILE = "labels.json"
#: White's mean game score per line of the positions file.
RESULTS_FILE = "results.npy"


def prepare(
    out_dir: str | Path,
    games: list[str],
    depth: int,
    teacher: str,
    seed: int = 0,
    players: str = OWN_FILTER,
) -> list[str]:
    """The positions of a labelling directory, shuffled by ``seed`` (so every chunk is
    a sample of all games): written with the settings on the first call, read back
    on later ones, which must ask for the same teacher, depth and player filter
    (:mod:`treestrap.learn.game_sources`). The games' results for the positions are
    written beside them (also into a directory made before they were)."""
    out = Path(out_dir)
    settings_path = out / SETTINGS_FILE
    settings: dict[str, Any] = {"teacher": teacher, "depth": depth}
    keep = player_filter(players)
    if settings_path.exists():
        saved = json.loads(settings_path.read_text())
        if {k: saved.get(k) for k in settings} != settings:
            raise ValueError(
                f"{out} holds labels of teacher {saved.get('teacher')!r} at depth "
                f"{saved.get('depth')}, not {teacher!r} at depth {depth}"
            )
        # A directory labelled before the filter existed took every game.
        if "players" in saved and saved["players"] != players:
            raise ValueError(
                f"{out} holds labels of the games of players {saved['players']!r}, not {players!r}"
            )
        epds = (out / POSITIONS_FILE).read_text().split("\n")
        if not (out / RESULTS_FILE).exists():
            np.save(out / RESULTS_FILE, position_results(games, epds, keep=keep))
        return epds
    sources = [game_file_record(g, keep) for g in games]
    means = _mean_results(games, first_ply=8, keep=keep)
    if not means:
        raise ValueError(f"the games hold no positions to label (players {players})")
    epds = list(means)
    order = np.random.default_rng(seed).permutation(len(epds))
    epds = [epds[i] for i in order]
    out.mkdir(parents=True, exist_ok=True)
    (out / POSITIONS_FILE).write_text("\n".join(epds))
    np.save(out / RESULTS_FILE, np.array([means[e] for e in epds]))
    settings.update(
        players=players,
        teacher_parent=named_parent("teacher", teacher, named_model(teacher)),
        games=sources,
        positions=len(epds),
        seed=seed,
        chunk=CHUNK,
    )
    settings_path.write_text(json.dumps(settings, indent=1) + "\n")
    return epds


def label_cpu_seconds(out_dir: str | Path) -> float:
    """The CPU seconds the labelling of ``out_dir``'s chunks took (chunks written before
    they recorded it count nothing)."""
    total = 0.0
    for path in Path(out_dir).glob("chunk-[0-9]*[0-9].npz"):
        with np.load(path) as chunk:
            if "cpu_seconds" in chunk.files:
                total += float(chunk["cpu_seconds"])
    return total


def label_settings(out_dir: str | Path) -> dict[str, Any]:
    """The settings :func:`prepare` recorded (empty for a directory without them)."""
    path = Path(out_dir) / SETTINGS_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def chunk_count(n: int, chunk: int) -> int:
    return (n + chunk - 1) // chunk


def labelled_chunks(out_dir: str | Path) -> int:
    return len(list(Path(out_dir).glob("chunk-[0-9]*[0-9].npz")))


def load_labels(out_dir: str | Path) -> Labels:
    """Every chunk of ``out_dir`` together."""
    files = sorted(Path(out_dir).glob("chunk-[0-9]*[0-9].npz"))
    if not files:
        raise FileNotFoundError(f"{out_dir}: no labelled chunks")
    parts = [np.load(f) for f in files]
    index = np.concatenate([p["index"] for p in parts])
    results = Path(out_dir) / RESULTS_FILE
    return Labels(
        np.concatenate([p["packed"] for p in parts]),
        np.concatenate([p["white_cp"] for p in parts]),
        index,
        white_result=np.load(results)[index] if results.exists() else None,
    )


def join_labels(
    parts: list[Labels], held_out: float = HELD_OUT, bases: list[np.ndarray] | None = None
) -> tuple[Labels, np.ndarray | None]:
    """Several labelling directories' labels as one, for :func:`fit_network`: the
    training rows of every part first, then every part's last ``held_out`` rows, so
    each part keeps its own held-out rows (one part comes back unchanged). ``bases``
    (each part's linear scores, or None) are reordered the same way."""
    cuts = training_cuts(parts, held_out)

    def join(arrays: list[np.ndarray]) -> np.ndarray:
        return join_rows(arrays, cuts)

    known = all(p.white_result is not None for p in parts)
    labels = Labels(
        join([p.packed for p in parts]),
        join([p.white_cp for p in parts]),
        join([p.index for p in parts]),
        held_out_count=sum(len(p.white_cp) - c for p, c in zip(parts, cuts, strict=True)),
        white_result=join([p.white_result for p in parts]) if known else None,  # type: ignore[misc]
    )
    return labels, None if bases is None else join(bases)


def training_cuts(parts: list[Labels], held_out: float = HELD_OUT) -> list[int]:
    """Each part's count of training rows (the rest it holds out)."""
    return [len(p.white_cp) - held_out_rows(len(p.white_cp), held_out) for p in parts]


def join_rows(arrays: list[np.ndarray], cuts: list[int]) -> np.ndarray:
    """Each part's rows before its cut (its training rows), then each part's rows from
    its cut on: the order of :func:`join_labels`."""
    order = [(k, slice(None, c)) for k, c in enumerate(cuts)]
    order += [(k, slice(c, None)) for k, c in enumerate(cuts)]
    return np.concatenate([arrays[k][s] for k, s in order])


def joined_positions(
    directories: list[str | Path], parts: list[Labels], held_out: float = HELD_OUT
) -> list[str]:
    """The EPDs of ``parts`` (the labels of ``directories``) in the order of
    :func:`join_labels`."""
    cuts = training_cuts(parts, held_out)
    epds = [
        np.array(positions_of(d, p.index), dtype=object)
        for d, p in zip(directories, parts, strict=True)
    ]
    return list(join_rows(epds, cuts))


def held_out_rows(n: int, held_out: float = HELD_OUT) -> int:
    """How many of ``n`` rows :func:`fit_network` holds out."""
    return max(1, int(n * held_out))


def white_probability(white_cp: np.ndarray) -> np.ndarray:
    """The searches' value mapping: a score for white as P(white wins)."""
    return 1.0 / (1.0 + np.exp(-np.asarray(white_cp) / CENTIPAWNS_PER_LOGIT))


def logit_error_cp(pred_logit: np.ndarray, white_cp: np.ndarray) -> float:
    """Root mean square difference in centipawns of predicted and target scores."""
    diff = np.asarray(pred_logit) * CENTIPAWNS_PER_LOGIT - np.asarray(white_cp)
    return math.sqrt(float(np.mean(diff * diff)))


def training_targets(labels: Labels, result_weight: float = 0.0) -> np.ndarray:
    """P(white wins) targets of ``labels``: the search scores' probabilities, with
    ``result_weight`` of each position's game result mixed in where it is known."""
    p = white_probability(labels.white_cp)
    if result_weight == 0.0:
        return p
    if labels.white_result is None:
        raise ValueError("these labels carry no game results: run distill label again")
    known = ~np.isnan(labels.white_result)
    p[known] = (1.0 - result_weight) * p[known] + result_weight * labels.white_result[known]
    return p


@dataclass
class FitReport:
    """Errors of a fitted network: RMS centipawns on the training and held-out rows."""

    epochs: int
    train_cp: float
    held_out_cp: float


def fit_network(
    labels: Labels,
    hidden: int = 256,
    epochs: int = 8,
    batch: int = 1024,
    lr: float = 1e-3,
    held_out: float = HELD_OUT,
    seed: int = 0,
    progress: bool = False,
    linear: LinearModel | None = None,
    linear_cp: np.ndarray | None = None,
    result_weight: float = 0.0,
    linear_rows: SparseRows | None = None,
) -> tuple[NetworkModel, list[FitReport]]:
    """A ``crelu:hidden`` network on the ``bitboard`` inputs fitted to ``labels`` by
    Adam on the soft cross-entropy of ``white_probability`` (each row also
    colour-flipped), the step size halved for each of the last half of the epochs;
    the held-out rows are the last ``held_out`` of them (or the labels' own
    ``held_out_count``). With ``linear`` (and its scores for white of the labelled
    positions, ``linear_cp``) the network is a hybrid's residual: it is fitted on top
    of those scores and the model carries the linear part. ``result_weight`` mixes the
    games' results into the targets: ``(1 - w) * P(search score) + w * result`` (a
    position no finished game reached keeps its search target). With ``linear_rows``
    (the labelled positions' features of the linear part) the linear weights are
    fitted too, from ``linear``'s, with the network; ``linear_cp`` is then not used."""
    import torch

    from treestrap.evaluation.colour_flip import flip_bitboard
    from treestrap.evaluation.network import quantize_first_layer

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(labels.white_cp)
    cut = n - (labels.held_out_count or held_out_rows(n, held_out))
    train_packed = labels.packed[:cut]
    train_p = training_targets(labels, result_weight)[:cut]
    val_rows = torch.from_numpy(labels.rows[cut:].astype(np.float32))
    val_cp = labels.white_cp[cut:]
    base = np.zeros(n) if linear_cp is None else np.asarray(linear_cp) / CENTIPAWNS_PER_LOGIT
    val_base = torch.from_numpy(base[cut:].astype(np.float32))

    first = torch.nn.Linear(BITBOARD_SIZE, hidden)
    last = torch.nn.Linear(hidden, 1)
    with torch.no_grad():
        last.weight.mul_(0.1)
        last.bias.zero_()
    params = [*first.parameters(), *last.parameters()]
    bag = None
    if linear_rows is not None:
        if linear is None:
            raise ValueError("fitting the linear part needs its starting weights")
        # theta in logits (the network's unit), so one step size suits both
        bag = torch.nn.EmbeddingBag(linear.feature_set.size, 1, mode="sum")
        with torch.no_grad():
            bag.weight.copy_(torch.from_numpy(linear.weights / CENTIPAWNS_PER_LOGIT)[:, None])
        params.append(bag.weight)
    optimizer = torch.optim.Adam(params, lr=lr)

    def logit(x: torch.Tensor) -> torch.Tensor:
        return last(torch.clamp(first(x), 0.0, 1.0)).squeeze(1)

    def offset_of(rows: np.ndarray) -> torch.Tensor:
        """The linear part's logits for white of training rows ``rows``."""
        if bag is None or linear_rows is None:
            return torch.from_numpy(base[rows].astype(np.float32))
        return linear_rows.take(rows).white_scores(bag)

    def rms(rows: torch.Tensor, offset: torch.Tensor, cp: np.ndarray) -> float:
        with torch.no_grad():
            pred = torch.cat([logit(rows[i : i + 8192]) for i in range(0, len(rows), 8192)])
        return logit_error_cp((pred + offset).double().numpy(), cp)

    reports: list[FitReport] = []
    for epoch in range(1, epochs + 1):
        if epoch > epochs // 2:
            for group in optimizer.param_groups:
                group["lr"] = lr * 0.5 ** (epoch - epochs // 2)
        order = rng.permutation(cut)
        for start in range(0, cut, batch):
            pick = order[start : start + batch]
            rows = np.unpackbits(train_packed[pick], axis=1, count=BITBOARD_SIZE)
            p = train_p[pick]
            x = torch.from_numpy(np.concatenate([rows, flip_bitboard(rows)]).astype(np.float32))
            y = torch.from_numpy(np.concatenate([p, 1.0 - p]).astype(np.float32))
            b = offset_of(pick)
            b = torch.cat([b, -b])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit(x) + b, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        sample = rng.choice(cut, size=min(cut, 50_000), replace=False)
        train_rows = torch.from_numpy(
            np.unpackbits(train_packed[sample], axis=1, count=BITBOARD_SIZE).astype(np.float32)
        )
        with torch.no_grad():
            train_base = offset_of(sample)
            if bag is not None:
                val_base = offset_of(np.arange(cut, n))
        reports.append(
            FitReport(
                epoch,
                rms(train_rows, train_base, labels.white_cp[sample]),
                rms(val_rows, val_base, val_cp),
            )
        )
        if progress:
            r = reports[-1]
            print(f"epoch {epoch}: train {r.train_cp:.1f} cp, held-out {r.held_out_cp:.1f} cp")

    with torch.no_grad():
        flat = np.concatenate(
            [
                first.weight.detach().double().numpy().T.reshape(-1),
                first.bias.detach().double().numpy(),
                last.weight.detach().double().numpy().reshape(-1),
                last.bias.detach().double().numpy(),
            ]
        )
    flat = quantize_first_layer(flat, BITBOARD_SIZE, hidden)
    if linear is None:
        return NetworkModel([hidden, 1], flat, activation="crelu"), reports
    theta = linear.weights.copy()
    if bag is not None:
        theta = bag.weight.detach().double().numpy()[:, 0] * CENTIPAWNS_PER_LOGIT
    hybrid = NetworkModel(
        [hidden, 1],
        flat,
        linear=theta,
        linear_set=linear.feature_set.name,
        activation="crelu",
    )
    return hybrid, reports


def quiet_mask(
    out_dir: str | Path, model: LinearModel | NetworkModel, index: np.ndarray
) -> np.ndarray:
    """Which positions ``index`` of a labelling directory are quiet for ``model``: the
    side to move is not in check and its quiescence search stands pat (no capture
    changes the value). A static evaluation is only ever asked for such positions' values
    by a search that plays out the captures itself; fitted to the search scores of the
    others, it learns to anticipate captures that the search then counts again."""
    from treestrap.core.notation import parse_fen
    from treestrap.core.position import in_check
    from treestrap.search.context import new_context, reset_context
    from treestrap.search.quiescence import quiescence

    ev = model.evaluator()
    ctx = new_context()
    reset_context(ctx)  # once: its evaluation cache then holds this evaluator's values
    out = np.zeros(len(index), dtype=bool)
    for i, epd in enumerate(positions_of(out_dir, index)):
        pos = parse_fen(epd + " 0 1")
        if in_check(pos):
            continue
        ctx.pv_len[0] = 0
        quiescence(pos, ev, ctx)
        out[i] = ctx.pv_len[0] == 0
    return out


def positions_of(out_dir: str | Path, index: np.ndarray) -> list[str]:
    """The EPDs of lines ``index`` of a labelling directory's positions file."""
    epds = (Path(out_dir) / POSITIONS_FILE).read_text().split("\n")
    return [epds[i] for i in index]


def linear_scores(out_dir: str | Path, model: LinearModel, index: np.ndarray) -> np.ndarray:
    """``model``'s static scores for white of the positions ``index`` (a
    :class:`Labels`' ``index``) of a labelling directory."""
    from treestrap.core.notation import parse_fen

    epds = positions_of(out_dir, index)
    out = np.zeros(len(epds))
    for i, epd in enumerate(epds):
        score = model.evaluate(parse_fen(epd + " 0 1"))
        out[i] = score if epd.split()[1] == "w" else -score
    return out

"""Human-readable reports on a weight file: a text summary and piece-square table plots
(a network's first layer is drawn by :mod:`treestrap.reports.network_plot`).

Everything here works from the feature *names* (``material/queen``,
``psqt/endgame/king/e4``, ``white_knight/f3``, ...), not from index arithmetic, so a
report stays right when a feature set's layout changes. Matplotlib is imported only
by :func:`plot_piece_square_tables`, and only with the Agg (file-only) backend.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from treestrap.evaluation.provenance import KEY as PROVENANCE

if TYPE_CHECKING:
    from treestrap.evaluation.weights import LinearModel

PIECE_TYPES = ("pawn", "knight", "bishop", "rook", "queen", "king")
MATERIAL_TYPES = PIECE_TYPES[:5]
MEEP_PHASES = ("opening", "middlegame", "endgame")
COLOURS = ("white", "black")
FILES = "abcdefgh"
RANKS = "12345678"
SQUARES = [f + r for r in RANKS for f in FILES]  # a1, b1, ..., h8 (index = rank * 8 + file)


def _decimals(weights: np.ndarray) -> int:
    """2 decimals for centipawn-scale weights; 4 when every weight is below 1 in size."""
    return 4 if weights.size and float(np.max(np.abs(weights))) < 1.0 else 2


def _compact(w: float, decimals: int = 2) -> str:
    """``100``, ``98.77``, ``-0.5``: at most ``decimals`` decimals, no trailing zeros."""
    text = f"{w:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _meta_value(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def block_of(name: str) -> str:
    """A feature's block: the first path component of its name (``psqt``, ``white_rook``)."""
    return name.split("/", 1)[0]


def _header(model: LinearModel) -> list[str]:
    fs = model.feature_set
    lines = [
        f"feature set  {fs.name}: {fs.description}",
        f"size         {fs.size} weights ({int(np.count_nonzero(model.weights))} non-zero)",
        f"layout hash  {fs.layout_hash}",
    ]
    # The provenance record is printed as a chain by ``weights show``, not as a value.
    shown = {k: v for k, v in model.metadata.items() if k != PROVENANCE}
    if shown:
        lines.append("metadata")
        width = max(len(str(k)) for k in shown)
        for key in sorted(shown, key=str):
            lines.append(f"  {key!s:<{width}}  {_meta_value(shown[key])}")
    else:
        lines.append("metadata     (none)")
    return lines


def _material(model: LinearModel, index: dict[str, int], decimals: int) -> list[str]:
    """The material weights line (meep-like sets only; empty otherwise)."""
    keys = [f"material/{t}" for t in MATERIAL_TYPES]
    if not all(k in index for k in keys):
        return []
    values = [float(model.weights[index[k]]) for k in keys]
    parts = "  ".join(
        f"{t} {_compact(v, decimals)}" for t, v in zip(MATERIAL_TYPES, values, strict=True)
    )
    lines = [f"material     {parts}"]
    if values[0] > 0:
        ratios = "  ".join(
            f"{t} {v / values[0]:.2f}" for t, v in zip(MATERIAL_TYPES[1:], values[1:], strict=True)
        )
        lines.append(f"  in pawns   {ratios}")
    return lines


def _top_table(model: LinearModel, top: int, group: str | None, decimals: int) -> list[str]:
    names = model.feature_set.names
    candidates = np.arange(len(names))
    if group:
        candidates = np.array([i for i, n in enumerate(names) if n.startswith(group)], dtype=int)
        if candidates.size == 0:
            blocks = ", ".join(dict.fromkeys(block_of(n) for n in names))
            raise ValueError(
                f"no feature of set {model.feature_set.name!r} starts with {group!r} "
                f"(blocks: {blocks})"
            )
    magnitude = np.abs(model.weights[candidates])
    order = candidates[np.argsort(-magnitude, kind="stable")][:top]
    scope = f"weights starting with {group!r}" if group else "weights"
    lines = [f"top {len(order)} of {candidates.size} {scope}, by |weight|"]
    rows = [(str(r), names[i], f"{model.weights[i]:.{decimals}f}") for r, i in enumerate(order, 1)]
    w_rank = max(len("rank"), *(len(r[0]) for r in rows))
    w_name = max(len("name"), *(len(r[1]) for r in rows))
    w_val = max(len("weight"), *(len(r[2]) for r in rows))
    lines.append(f"{'rank':>{w_rank}}  {'name':<{w_name}}  {'weight':>{w_val}}")
    lines += [f"{r:>{w_rank}}  {n:<{w_name}}  {v:>{w_val}}" for r, n, v in rows]
    return lines


def _block_table(model: LinearModel, decimals: int) -> list[str]:
    members: dict[str, list[int]] = {}
    for i, name in enumerate(model.feature_set.names):
        members.setdefault(block_of(name), []).append(i)
    heads = ("block", "count", "mean", "mean |w|", "min", "max")
    rows = []
    for block, idx in members.items():
        w = model.weights[idx]
        stats = (w.mean(), np.abs(w).mean(), w.min(), w.max())
        rows.append((block, str(len(idx)), *(f"{s:.{decimals}f}" for s in stats)))
    widths = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(heads)]

    def fmt(cells: tuple[str, ...]) -> str:
        first = f"{cells[0]:<{widths[0]}}"
        rest = (f"{c:>{w}}" for c, w in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    return ["per block", fmt(heads), *(fmt(r) for r in rows)]


def weights_report(model: Any, top: int = 25, group: str | None = None) -> str:
    """A chess weight file's report: a network described, linear weights summarized."""
    if model.is_network:
        return str(model.report())
    return summarize(model, top=top, group=group)


def summarize(model: LinearModel, top: int = 25, group: str | None = None) -> str:
    """The text report: header and metadata, material (meep), the ``top`` weights of
    largest magnitude (only names starting with ``group`` if given), per-block stats.

    ``ValueError`` if no feature name starts with ``group``.
    """
    if top < 0:
        raise ValueError(f"top must be >= 0, got {top}")
    index = {name: i for i, name in enumerate(model.feature_set.names)}
    decimals = _decimals(model.weights)
    sections = [_header(model)]
    material = _material(model, index, decimals)
    if material:
        sections.append(material)
    if top > 0:
        sections.append(_top_table(model, top, group, decimals))
    elif group:
        _top_table(model, 0, group, decimals)  # still report an unknown group
    sections.append(_block_table(model, decimals))
    return "\n\n".join("\n".join(s) for s in sections)


def piece_square_tables(model: LinearModel) -> tuple[list[str], list[str], np.ndarray]:
    """The model's piece-square tables as ``(row labels, column labels, tables)`` with
    ``tables[row, col]`` an 8x8 array indexed ``[rank, file]`` (rank 1 first).

    Rows are the phases for ``meep`` (squares from the owner's side: rank 1 is its back
    rank) and the colours for ``bitboard``; columns are the piece types. Pawn squares on
    ranks 1 and 8, which no feature ever activates, are NaN. ``ValueError`` for a
    feature set without piece-square features.
    """
    index = {name: i for i, name in enumerate(model.feature_set.names)}
    if all(
        f"psqt/{p}/{t}/{sq}" in index for p in MEEP_PHASES for t in PIECE_TYPES for sq in SQUARES
    ):
        rows = list(MEEP_PHASES)

        def key(row: str, t: str, sq: str) -> str:
            return f"psqt/{row}/{t}/{sq}"
    elif all(f"{c}_{t}/{sq}" in index for c in COLOURS for t in PIECE_TYPES for sq in SQUARES):
        rows = list(COLOURS)

        def key(row: str, t: str, sq: str) -> str:
            return f"{row}_{t}/{sq}"
    else:
        raise ValueError(f"feature set {model.feature_set.name!r} has no piece-square tables")
    tables = np.empty((len(rows), len(PIECE_TYPES), 8, 8))
    for r, row in enumerate(rows):
        for c, t in enumerate(PIECE_TYPES):
            idx = [index[key(row, t, sq)] for sq in SQUARES]
            tables[r, c] = model.weights[idx].reshape(8, 8)
            if t == "pawn":
                tables[r, c, [0, 7], :] = np.nan
    return rows, list(PIECE_TYPES), tables


def plot_weights(
    model: Any, path: str | Path, title: str | None = None, units: int | None = None
) -> Path:
    """A chess weight file's picture: a linear model's piece-square tables, or the
    first layer of a network's ``units`` most important hidden units (None: the
    picture's default). ``ValueError`` for a model neither picture can show."""
    if model.is_network:
        from treestrap.reports.network_plot import DEFAULT_UNITS, plot_network_units

        return plot_network_units(model, path, title=title, units=units or DEFAULT_UNITS)
    return plot_piece_square_tables(model, path, title=title)


def plot_piece_square_tables(
    model: LinearModel, path: str | Path, title: str | None = None
) -> Path:
    """Draw the piece-square tables as 8x8 boards (rank 8 at the top) on one diverging
    colour scale centred on 0, and save the figure to ``path`` (format from the suffix,
    e.g. ``.png``); ``title`` (say, the weight file's name) heads the figure. Returns the
    path written.
    """
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    rows, cols, tables = piece_square_tables(model)
    finite = tables[np.isfinite(tables)]
    limit = float(np.max(np.abs(finite))) if finite.size else 0.0
    limit = limit if limit > 0 else 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit)
    cmap = colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")  # grey: squares never used
    decimals = 0 if limit >= 10 else (1 if limit >= 1 else 2)

    width, height = 2.6 * len(cols) + 1.2, 2.75 * len(rows) + 1.0
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    # Fixed margins (in inches) rather than a layout engine: the 64 labels per board
    # make constrained layout slow, and the grid is regular anyway.
    fig.subplots_adjust(
        left=0.35 / width,
        right=1 - 1.3 / width,
        bottom=0.35 / height,
        top=1 - 0.95 / height,
        wspace=0.12,
        hspace=0.3,
    )
    axes = fig.subplots(len(rows), len(cols), squeeze=False)
    image = None
    for r, row in enumerate(rows):
        for c, col in enumerate(cols):
            ax = axes[r, c]
            board = tables[r, c][::-1]  # row 0 of the image = rank 8
            image = ax.imshow(board, cmap=cmap, norm=norm, interpolation="nearest")
            for y in range(8):
                for x in range(8):
                    v = board[y, x]
                    if np.isfinite(v):
                        strong = abs(v) > 0.6 * limit
                        label = f"{v:.{decimals}f}"
                        ax.text(
                            x,
                            y,
                            label.lstrip("-") if float(label) == 0 else label,
                            ha="center",
                            va="center",
                            fontsize=5,
                            color="white" if strong else "black",
                        )
            ax.set_xticks(range(8), list(FILES), fontsize=7)
            ax.set_yticks(range(8), list(RANKS[::-1]), fontsize=7)
            ax.tick_params(length=0)
            ax.set_title(f"{row} {col}", fontsize=9)
    fs = model.feature_set
    view = (
        "squares from each side's own view (rank 1 = its back rank)"
        if rows == list(MEEP_PHASES)
        else "absolute squares; weights score for white"
    )
    preset = model.metadata.get("preset") or model.metadata.get("algorithm")
    heading = f"{fs.name} piece-square tables" + (f" ({preset})" if preset else "")
    heading = f"{title}: {heading}" if title else heading
    fig.suptitle(f"{heading}\n{fs.name}, layout {fs.layout_hash}; {view}", fontsize=11)
    if image is not None:
        cax = fig.add_axes((1 - 0.95 / width, 0.2, 0.18 / width, 0.6))
        fig.colorbar(image, cax=cax, label="weight")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    return path

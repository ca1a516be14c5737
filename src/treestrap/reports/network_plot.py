"""Pictures of a chess network's first layer (``treestrap weights show NET --plot``).

A network on the ``bitboard`` inputs (a ``crelu``/``mlp`` network, a hybrid's network
part, a perspective network) gives each hidden unit of its first layer one weight per
piece on each square: 12 boards of 8x8. The picture draws those boards for the units
that matter most, one row per unit, ranked by the norm of the unit's input weights
times the norm of its output weights (a unit with large input weights that the next
layer ignores changes nothing, nor does a heavily weighted unit that no input moves).

Each row has its own diverging colour scale centred on 0 (units differ in size by
orders of magnitude: one scale for all would leave most rows blank). Pawn squares on
ranks 1 and 8, which no position activates, are grey. A perspective network's boards
are its feature transformer as the white accumulator reads it: "own" pieces are
white's; the black accumulator reads the colour-flipped board. Matplotlib is imported
only when a picture is drawn, with the Agg (file-only) backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Units drawn when the caller does not say.
DEFAULT_UNITS = 8
#: Piece-square inputs: 12 pieces (white pawn .. king, black pawn .. king) x 64 squares.
PIECE_INPUTS = 768
PIECE_TYPES = ("pawn", "knight", "bishop", "rook", "queen", "king")
FILES = "abcdefgh"


@dataclass
class FirstLayer:
    """A network's first layer as the picture needs it."""

    #: ``[768, N]``: what a piece on a square adds to each unit (the bitboard order)
    inputs: np.ndarray
    #: ``[N, K]``: the weights the next layer (or the output) gives each unit
    outputs: np.ndarray
    #: the two colours' names, as the column titles say them
    colours: tuple[str, str]
    #: a line on what is drawn, for the figure's heading
    view: str
    #: per unit, an extra note for its title (e.g. its side-to-move weight), or ""
    notes: list[str]


def first_layer(model: Any) -> FirstLayer:
    """The first layer of a chess network model; ``ValueError`` for anything else.
    What a model is comes from what it says of itself (a network, on the chess
    ``bitboard`` inputs, its ``--model`` spec), not from its class."""
    chess_inputs = getattr(getattr(model, "feature_set", None), "size", 0) == PIECE_INPUTS + 1
    if not (getattr(model, "is_network", False) and chess_inputs):
        raise ValueError("the network picture draws chess networks on the bitboard inputs")
    if str(model.spec).startswith("perspective:"):
        return _perspective_layer(model)
    return _network_layer(model)


def _network_layer(model: Any) -> FirstLayer:
    inputs = model.feature_set.size  # 768 piece-square inputs, then the side to move
    size0 = model.sizes[0]
    w0 = model.weights[: inputs * size0].reshape(inputs, size0)
    if len(model.sizes) == 1:
        # Logistic regression: the one output is the only "unit", read at weight 1.
        outputs = np.ones((1, 1))
    else:
        start = inputs * size0 + size0  # after W0 and b0
        outputs = model.weights[start : start + model.sizes[1] * size0]
        outputs = outputs.reshape(model.sizes[1], size0).T
    view = "absolute squares; the output scores for white"
    if model.linear is not None:
        view += f"; the linear {model.linear_set} part is not drawn"
    notes = [f"white to move {w:+.3g}" for w in w0[PIECE_INPUTS]]
    return FirstLayer(w0[:PIECE_INPUTS], outputs, ("white", "black"), view, notes)


def _perspective_layer(model: Any) -> FirstLayer:
    from treestrap.evaluation.perspective import split_parameters

    w, _, out, _ = split_parameters(model.weights, model.width, model.buckets)
    n = model.width
    # Per unit: its weight in the side to move's half, then in the other's, per bucket.
    outputs = np.concatenate([out[:, :n].T, out[:, n:].T], axis=1)
    view = "the white accumulator's view (own = white); black's reads the board colour-flipped"
    return FirstLayer(w, outputs, ("own", "their"), view, [""] * n)


def unit_order(layer: FirstLayer) -> np.ndarray:
    """The units, most important first: |input weights| x |output weights| (norms)."""
    importance = np.linalg.norm(layer.inputs, axis=0) * np.linalg.norm(layer.outputs, axis=1)
    return np.argsort(-importance, kind="stable")


def output_label(layer: FirstLayer, unit: int) -> str:
    """A unit's output weight as its title says it (one line, or two for a
    perspective network's two halves)."""
    out = layer.outputs[unit]
    if out.size == 1:
        return f"output {out[0]:+.3g}"
    if layer.colours[0] == "own" and out.size == 2:
        return f"output {out[0]:+.3g} to move\noutput {out[1]:+.3g} other"
    return f"|output| {np.linalg.norm(out):.3g}"


def unit_boards(layer: FirstLayer, unit: int) -> np.ndarray:
    """``[12, 8, 8]``: a unit's weights per piece (white pawn .. black king) and square,
    indexed ``[rank, file]`` with rank 1 first; unused pawn squares NaN."""
    boards = layer.inputs[:, unit].reshape(12, 8, 8).astype(np.float64)
    for pawn in (0, 6):
        boards[pawn, [0, 7], :] = np.nan
    return boards


def plot_network_units(
    model: Any, path: str | Path, title: str | None = None, units: int = DEFAULT_UNITS
) -> Path:
    """Draw the first-layer weights of the ``units`` most important hidden units of a
    chess network, one row of 12 boards per unit (see the module docstring), and save
    the figure to ``path`` (format from the suffix). ``ValueError`` for a model the
    picture cannot show or ``units`` below 1. Returns the path written."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import TwoSlopeNorm
    from matplotlib.figure import Figure

    if units < 1:
        raise ValueError(f"units must be >= 1, got {units}")
    layer = first_layer(model)
    order = unit_order(layer)[:units]
    cmap = colormaps["RdBu_r"].with_extremes(bad="#d9d9d9")  # grey: squares never used
    columns = [f"{c} {t}" for c in layer.colours for t in PIECE_TYPES]

    width, height = 1.15 * len(columns) + 2.6, 1.3 * len(order) + 1.2
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    # Fixed margins (in inches): a layout engine is slow with a hundred small axes.
    fig.subplots_adjust(
        left=1.9 / width,
        right=1 - 0.9 / width,
        bottom=0.3 / height,
        top=1 - 0.9 / height,
        wspace=0.08,
        hspace=0.25,
    )
    axes = fig.subplots(len(order), len(columns), squeeze=False)
    for row, unit in enumerate(order):
        boards = unit_boards(layer, int(unit))
        finite = boards[np.isfinite(boards)]
        limit = float(np.max(np.abs(finite))) if finite.size else 0.0
        norm = TwoSlopeNorm(vcenter=0.0, vmin=-(limit or 1.0), vmax=limit or 1.0)
        image = None
        for col in range(len(columns)):
            ax = axes[row, col]
            image = ax.imshow(boards[col][::-1], cmap=cmap, norm=norm, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if row == 0:
                ax.set_title(columns[col], fontsize=8)
        note = layer.notes[unit]
        label = f"#{row + 1}: unit {unit}\n{output_label(layer, int(unit))}"
        axes[row, 0].set_ylabel(
            label + (f"\n{note}" if note else ""),
            fontsize=7,
            rotation=0,
            horizontalalignment="right",
            verticalalignment="center",
        )
        if image is not None:  # the row's scale, right of its last board
            box = axes[row, -1].get_position()
            cax = fig.add_axes((box.x1 + 0.1 / width, box.y0, 0.12 / width, box.height))
            fig.colorbar(image, cax=cax).ax.tick_params(labelsize=6)
    for col in range(len(columns)):
        axes[-1, col].set_xticks([0, 7], [FILES[0], FILES[-1]], fontsize=6)
    describe = model.describe() if hasattr(model, "describe") else type(model).__name__
    heading = f"{describe}: first-layer weights of the {len(order)} most important units"
    heading = f"{title}: {heading}" if title else heading
    fig.suptitle(
        f"{heading}\nranked by |input weights| x |output weights|; a1 bottom left, {layer.view}",
        fontsize=10,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path

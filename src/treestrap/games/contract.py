"""The game contract: what the training run, its actors and the learning rules see of a
game. Chess (:mod:`treestrap.games.chess_game`) and Connect Four
(:mod:`treestrap.games.connect4_game`) each fill one :class:`Game`.

A position is the game's own named tuple of arrays, mutated in place; a move is an
integer; an evaluator is the game's compiled view of a model (``model.evaluator()``,
sharing the weights, with scratch ``idx``/``val`` where :attr:`Game.evaluate_gradient`
leaves the gradient's sparse pairs). A search returns its result (the fields of chess's
``SearchResult``: value, best_move, pv, depth, nodes, qnodes, seldepth, stopped) and the
:class:`~treestrap.core.search_tree.SearchTree` the learning rules read (None for a rule
that reads none).

A game whose players meet in process (not as engines) fills :class:`TournamentPlay`:
what :mod:`treestrap.play.contract_tournament` needs of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from treestrap.core.search_tree import SearchTree
from treestrap.games.records import RecordTags

ALPHABETA = "alphabeta"
MINIMAX = "minimax"


class SearchPlan(NamedTuple):
    """The search a rule learns from, as the training run's config sets it."""

    kind: str  # ALPHABETA or MINIMAX
    tt_bits: int = 18
    depth: int | None = 3  # alpha-beta: fixed depth, or None for the move's node budget
    min_depth: int = 1  # the table walk's d
    walk: bool = False  # read the table back into a tree (TreeStrap(alpha-beta))
    minimax_nodes: int = 5000
    minimax_qnodes: int = 0
    max_depth: int = 32  # minimax: its deepest iteration
    # chess alone: nodes valued by quiescence, every walked node's exact leaf (a
    # network's replay set), the walk's room for a network's inputs, NOISY flags
    quiescence: bool = False
    exact_leaves: bool = False
    network: bool = False
    mark_noisy: bool = False


class Model(Protocol):
    """The one seam of every model kind of every game (linear weights, networks, hybrids):
    what the searches, the rules, the run and its files ask of a model, never its class.

    A linear model adds ``feature_names()`` (``--freeze`` picks from them); a network
    adds ``sizes``, ``activation``, ``torch_twin()`` (a float64 torch module equal to it,
    for fitting), ``write_evaluator(ev, params)`` (new parameters into its compiled
    view, in place) and ``report()`` (what ``weights show`` prints); a kind that no
    self-play rule learns says ``learns_online = False``. What a search may ask beyond
    the value (a cheap estimate for a lazy stand pat) is the compiled view's own
    capability (:func:`treestrap.evaluation.model.lazy_estimate`)."""

    #: linear weights (learned in place by the linear rules) or a network (Algorithm 7)
    is_network: bool
    #: the ``--model`` value of its kind ("linear", "mlp:20", "crelu:256", "logreg")
    spec: str
    #: the feature set (a network's: its inputs) it reads
    feature_set_name: str
    #: flat parameters; a file's provenance and a run's state in ``metadata``
    weights: np.ndarray
    metadata: dict[str, Any]

    def evaluator(self) -> Any:
        """The compiled view the searches call (sharing or copying the weights)."""
        ...

    def save(self, path: Any) -> None:
        """Write the model's weight file atomically."""
        ...


class LearningSearch(Protocol):
    """A search a rule learns from, with its own scratch space and table."""

    def search(
        self, pos: Any, ev: Any, node_budget: int | None
    ) -> tuple[Any, SearchTree | None]: ...


class MovePlayer(Protocol):
    """Whoever moves in a game of in-process players: a move (the game's integer) for a
    position it must not change. Made once, it is seeded before each game, so its
    random choices repeat game by game while its tables stay warm."""

    name: str

    def new_game(self, seed: int) -> None: ...

    def choose(self, pos: Any) -> int: ...


@dataclass(frozen=True)
class TournamentPlay:
    """What a tournament of a game's in-process players takes from the game."""

    #: ``(texts)``: the player specs, each with a unique ``name`` (``ValueError`` says
    #: what is wrong, before any game: a missing weight file too); equal specs make
    #: equal players
    parse_players: Callable[[list[str]], list[Any]]
    #: ``(specs)``: the players of one tournament, made once (they may share a table)
    make_players: Callable[[list[Any]], list[MovePlayer]]
    #: ``(count, plies, seed)``: ``count`` openings of ``plies`` moves, the same for the
    #: same seed, none of which decides the game
    openings: Callable[[int, int, int], list[list[int]]]
    #: ``(tags, opening, moves)``: a finished game as PGN, from its opening's moves and
    #: the players' as the game writes them (``tags.number``: the opening's number)
    record: Callable[[RecordTags, Sequence[str], Sequence[str]], str]
    #: ``(name, path, tc)``: the spec of a player named ``name`` that searches with the
    #: weight file ``path`` under a learning curve's limit ``tc`` (``ValueError`` for a
    #: limit or a path its specs cannot take)
    weights_player: Callable[[str, str, str], str]
    #: its spec forms, for messages
    player_forms: str = ""
    #: plies of an opening unless the tournament says, and at most
    opening_plies: int = 4
    max_opening_plies: int = 30


@dataclass(frozen=True)
class Game:
    """One game, as plain functions over its positions (each game's module says how)."""

    name: str
    #: the starting position of a game
    start_position: Callable[[], Any]
    copy_position: Callable[[Any], Any]
    #: a buffer long enough for any position's moves
    new_move_buffer: Callable[[], np.ndarray]
    #: the legal moves into a caller's buffer; returns their count
    legal_moves: Callable[[Any, np.ndarray], int]
    make_move: Callable[[Any, int], None]
    unmake_move: Callable[[Any], None]
    #: ``(result, why)``: the side to move's result once the game is over (+1 won,
    #: 0 drawn, -1 lost) and the reason, or ``(None, "")`` while it goes on; the buffer
    #: is scratch
    terminal: Callable[[Any, np.ndarray], tuple[float | None, str]]
    #: 0 for the first player (white), 1 for the second
    side_to_move: Callable[[Any], int]
    #: the position's hash
    key: Callable[[Any], int]
    #: ``H(s)`` for the side to move
    evaluate: Callable[[Any, Any], float]
    #: ``(H(s), n)``, the gradient's ``n`` pairs left in ``ev.idx``, ``ev.val``
    evaluate_gradient: Callable[[Any, Any], tuple[float, int]]
    #: a move as the game writes it
    move_text: Callable[[Any, int], str]
    #: the legal move of a position written ``text`` (the inverse of :attr:`move_text`;
    #: ``ValueError`` for text that is no legal move there)
    parse_move: Callable[[Any, str], int]
    #: a number that is no move of the game ("no reply predicted")
    no_move: int
    #: the search of a :class:`SearchPlan`
    learning_search: Callable[[SearchPlan], LearningSearch]
    # Its models (:class:`Model`).
    #: ``(feature_set)``: the names of a linear model's weights, in order (``ValueError``
    #: for a feature set the game does not have)
    feature_names: Callable[[str], list[str]]
    #: ``(feature_set, seed, scale)``: linear weights uniform in +-scale
    random_model: Callable[[str, int, float], Model]
    #: ``(feature_set)``: the hand-written evaluation as linear weights
    hand_set_model: Callable[[str], Model]
    #: ``(sizes, activation, seed, scale)``: a network with random parameters
    random_network: Callable[[list[int], str, int, float], Model]
    #: a weight file of this game, linear or a network (``ValueError`` says what is wrong)
    load_model: Callable[[Any], Model]
    #: its networks' inputs as a replay set stores them, with the symmetry that doubles
    #: each sample (:class:`~treestrap.games.network_inputs.ReplayInputs`)
    network_inputs: Any
    #: a position's network inputs as one dense float64 row (what a torch twin reads:
    #: its output ``z`` is ``UNITS_PER_LOGIT * z`` for the first player)
    network_input_row: Callable[[Any], np.ndarray]
    #: a training game's record (:class:`~treestrap.games.records.GameRecord`, its
    #: position included) from its opening: a book's line for a game whose runs play
    #: from a book (chess: ``play.openings.Opening``), else the moves of :attr:`opening`
    start_record: Callable[[Any], Any]
    #: ``(seed, number)``: the moves of self-play game ``number``'s opening, for a game
    #: whose runs draw their own (None: its runs play from an opening book)
    opening: Callable[[int, int], list[int]] | None = None
    #: how its in-process players meet in a tournament (None: its tournaments are engine
    #: tournaments, :mod:`treestrap.play.tournament`)
    tournament_play: TournamentPlay | None = None

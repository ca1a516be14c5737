"""treestrap: learn a chess evaluation function from game-tree search.

The package is layered, lowest first; a module imports only from its own layer or
those below it (layers on one line are siblings)::

    core                (numba) bitboards, positions, move generation, perft; EPD text
    evaluation          (numba) feature sets, the linear model and networks, weight files
    search              (numba) training alpha-beta, minimax, tournament PVS, TT, ordering
    learn, engine       update rules | the engine API, its UCI front end and the bench
    rating, reports     Elo, ratings, SPRT, curve fits | weight tables and plots
    play                games between players, opening books, tournaments
    supervised          PGN datasets, torch models, supervised training
    training            a training run; learning curves of finished runs
    distributed         self-play actors and one learner
    reproduce           one module per paper
    commands, cli       one module per subcommand; the parser and the dispatch

:mod:`treestrap.textcheck` (refusing binary and UTF-16 files) may be used from any layer,
and :mod:`treestrap.version` (``treestrap --version``: the version and git commit).
To play positions from Python, use the core (:mod:`treestrap.core.notation`: FEN, UCI
moves, python-chess conversion; :mod:`treestrap.core.makemove`) and the engine API
(:class:`treestrap.engine.engine.Engine`).
"""

__version__ = "0.1.0"

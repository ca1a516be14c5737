"""Searches (numba): the training alpha-beta, the full-tree minimax that keeps every
node, the transposition table, move ordering, and reading a finished search back as a
tree of (features, static value, bounds) records for the learners. The searches for
learning are one family for every game, compiled per game from its kernels
(:mod:`treestrap.search.family`); chess's tournament search is its own.

Every chess search takes the evaluator as an
:class:`treestrap.evaluation.model.Evaluator` and calls only
:func:`treestrap.evaluation.model.evaluate_gradient`; it knows nothing of feature sets
or model kinds.
"""

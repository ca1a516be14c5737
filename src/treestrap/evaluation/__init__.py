"""Evaluation (numba): feature sets, the linear model, weight files.

A feature set (a module of :mod:`treestrap.evaluation.feature_sets`, listed in its
registry) maps a position to a sparse vector phi(s) of (index, value) pairs. A model
maps phi(s) and its parameters to a score from the side to move's point of view.
Searches call :mod:`treestrap.evaluation.model` and nothing else, so a new feature set
or model never touches search code.
"""

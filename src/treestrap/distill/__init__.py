"""Distillation: a network fitted to a teacher engine's search scores.

A pure network (no linear part) cannot start from random weights and beat a strong
linear evaluation within a session's budget, but it can start from what that evaluation
and its search already know: :mod:`~treestrap.distill.labels` scores the positions of
PGN games with the teacher's search, :mod:`~treestrap.distill.fit` fits a clipped-ReLU
network on the ``bitboard`` inputs to those scores. The result is an ordinary network
file, which TreeStrap can refine (``treestrap train --init``).
"""

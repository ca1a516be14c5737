"""Ratings from game results (ordinary Python): match Elo with intervals, BayesElo-model
ratings, the SPRT, tournament standings, and learning curves' fits.

Computation over ``(white, black, result)`` records read from PGN files or results
databases: nothing here plays a game.
"""

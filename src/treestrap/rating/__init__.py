"""Ratings from game results (ordinary Python): match Elo with intervals, BayesElo-model
ratings, the SPRT, tournament standings, and learning curves' fits.

Pure computation over ``(white, black, result)`` records: nothing here plays a game.
"""

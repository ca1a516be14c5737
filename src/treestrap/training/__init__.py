"""A training run (ordinary Python): its configuration and presets, the learner's
searches, opponents and ladders, the game loop of learning, checkpoints, per-game
records, and learning curves of finished runs.

Kept free of imports so that ``treestrap train --help`` can read
:mod:`treestrap.training.presets` instantly.
"""

"""Datasets of labelled positions from PGN game collections (Serban 2014, sections 6.4-6.7).

The modules, in the order a build uses them:

``source``     reads plain or compressed PGN and cuts it into the text of each game
``filters``    which games are kept (Elo, Event, TimeControl, length, undecided results)
``game``       one game's text -> its moves and label, or the reason it is skipped
``labels``     the three classes and how a game's result becomes one
``rollout``    plays resigned or agreed games to the end with Stockfish (section 6.6)
``scoring``    Stockfish's search score of a position, the benchmark feature (6.2.1)
``stockfish``  one Stockfish process per worker, the same settings everywhere
``encode``     positions -> the stored arrays, through the compiled feature extractors
``split``      train/validation/test by game (section 6.7)
``chunk``      the work of one worker: a chunk of games -> shard files
``store``      the shard and manifest format, and loading a split (the training side)
``options``    the build options, their command-line forms and resume checks
``parallel``   a bounded process pool that stops cleanly on Ctrl-C
``build``      ``treestrap dataset build``: the whole build, resumable
``generate``   ``treestrap dataset generate``: engine self-play games as more PGN
"""

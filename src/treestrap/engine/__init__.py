"""The playing engine: what plays a game move by move, and how it is spoken to.

- :mod:`treestrap.engine.engine`: the engine API (:class:`~treestrap.engine.engine.Engine`):
  a position, limits and weights in; a move and search information out. Iterative
  deepening with aspiration windows over the tournament search, MultiPV, a stop flag and
  a timer.
- :mod:`treestrap.engine.iteration`: one thread's root search at one depth, in
  aspiration windows.
- :mod:`treestrap.engine.lazy_smp`: helper search threads sharing the table (UCI's
  ``Threads``).
- :mod:`treestrap.engine.uci`: its Universal Chess Interface front end (``treestrap uci``).
- :mod:`treestrap.engine.uci_protocol`: the text of that interface: ``go`` and
  ``position`` commands read, ``info`` lines written.
- :mod:`treestrap.engine.bench`: the bench, whose total node count is the engine's
  signature (``treestrap bench`` and the UCI ``bench`` command).

The wing sits beside ``learn``, above ``search``, ``evaluation`` and ``core``, and
imports only from those. This file imports nothing, so that ``treestrap.engine.bench``
(its depth read when the CLI is built) does not pull in the compiled search.
"""

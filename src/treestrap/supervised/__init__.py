"""Supervised learning of the winner from game collections (Serban 2014, chapters 3 and 6).

``dataset/`` turns PGN collections into position shards with labels; ``models/`` holds
the PyTorch models; training, checkpoints and reports sit beside them. Everything that
needs PyTorch imports it through :func:`treestrap.supervised.torch_required.require_torch`,
so that a user without the ``torch`` extra gets an install hint instead of an import error.
"""

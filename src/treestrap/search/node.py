"""Recording a node of a learning search, written once for every game: evaluate the
position, then keep its value, gradient and key in the search-tree record
(:mod:`treestrap.core.search_tree`). Compiled per game like the search family
(:mod:`treestrap.search.family`): the game module offers ``evaluate_gradient(pos, ev)
-> (H(s), n)``, leaving the gradient's pairs in ``ev.idx``, ``ev.val``, and
``position_key(pos)``.
"""

from __future__ import annotations

from typing import Any

from treestrap.core.search_tree import record_node

game: Any = None  # each compiled copy's own game module (search/family.py)


def add_node(
    tree: Any, pos: Any, ev: Any, parent: int, move: int, ply: int, depth: int, flags: int
) -> tuple:
    """Evaluate ``pos`` and record it; returns ``(node index or -1 if full, H(s))``
    (its bounds left unknown)."""
    h, n = game.evaluate_gradient(pos, ev)
    key = game.position_key(pos)
    return record_node(tree, ev.idx, ev.val, n, h, key, parent, move, ply, depth, flags), h

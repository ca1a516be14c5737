"""Train, validation and test sets, divided by game (Serban 2014, section 6.7).

A game's split is drawn from a hash of the seed and the game's moves (start position
and every move in UCI), not from its place in a file. So every position of a game is in
one split; two copies of the same game (collections repeat games) land in the same
split, so no game leaks from training into test; and the answer does not depend on the
order or number of workers, nor on what else is in the dataset, which is what lets a
build resume or be extended. The proportions are those of the weights on average, as
in Serban's split (58:20:22 for his nominal 6:2:2).

With a held-out test file (``--test-pgn``) its games are the test set and the other
files are divided between training and validation in the proportion of the first two
weights.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

TRAIN, VALIDATION, TEST = 0, 1, 2
SPLIT_NAMES = ("train", "validation", "test")


def split_index(name: str) -> int:
    """The split called ``name``; ``ValueError`` lists the names."""
    try:
        return SPLIT_NAMES.index(name)
    except ValueError:
        raise ValueError(f"unknown split {name!r} (expected {', '.join(SPLIT_NAMES)})") from None


def game_key(start_fen: str, moves_uci: Sequence[str]) -> str:
    """What identifies a game for splitting: where it starts and how it went."""
    return start_fen + "\n" + " ".join(moves_uci)


def assign_split(key: str, seed: int, weights: tuple[int, int, int], held_out_test: bool) -> int:
    """The split of the game with ``key`` (see the module docstring).

    With ``held_out_test`` the game comes from the training files, so it goes to train or
    validation only.

    >>> assign_split("g", 0, (1, 0, 0), False)
    0
    >>> assign_split("g", 0, (6, 2, 2), True) in (0, 1)
    True
    """
    digest = hashlib.sha256(f"{seed}\n{key}".encode()).digest()
    u = int.from_bytes(digest[:8], "little") / 2.0**64  # uniform in [0, 1)
    train, validation, test = weights
    if held_out_test:
        test = 0
    total = train + validation + test
    if u * total < train:
        return TRAIN
    if u * total < train + validation:
        return VALIDATION
    return TEST

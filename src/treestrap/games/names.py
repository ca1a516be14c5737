"""The games by name, numba-free so the command line lists them instantly."""

from __future__ import annotations

CHESS = "chess"
CONNECT4 = "connect4"
GAME_NAMES = (CHESS, CONNECT4)

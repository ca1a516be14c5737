"""An external engine that names itself as ours gets one search without a clock before
its game (``play.sessions.warm_up``): from a cold compile cache our engine would answer
every timed move of a fast game with its plain-Python quick move. Other engines are
started as before."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import chess

from treestrap.play.players import parse_player
from treestrap.play.sessions import EngineProcess
from treestrap.play.timecontrol import TimeControl

ENGINES = Path(__file__).resolve().parent / "engines"


def commands_seen(tmp_path: Path, *options: str) -> list[str]:
    """The commands a toy UCI engine received from its start to the end of a first
    timed move."""
    log = tmp_path / "commands.log"
    words = (sys.executable, str(ENGINES / "toy_uci.py"), "--log", str(log), *options)
    spec = parse_player("toy=uci:" + " ".join(shlex.quote(w) for w in words))
    tc = TimeControl(base=1, increment=0.01)
    session = EngineProcess(spec, tc)
    try:
        session.play(chess.Board(), {chess.WHITE: 1.0, chess.BLACK: 1.0})
    finally:
        session.close()
    return [line.strip() for line in log.read_text().splitlines()]


def test_our_engine_searches_once_without_a_clock_before_the_game(tmp_path: Path) -> None:
    seen = commands_seen(tmp_path, "--our-name")
    searches = [line for line in seen if line.startswith("go")]
    assert searches[0] == "go depth 1"
    assert "wtime" in searches[1]  # then the game's timed move, after a new game
    assert seen.index("ucinewgame", seen.index("go depth 1")) < seen.index(searches[1])


def test_other_engines_get_no_search_before_the_game(tmp_path: Path) -> None:
    searches = [line for line in commands_seen(tmp_path) if line.startswith("go")]
    assert len(searches) == 1 and "wtime" in searches[0]

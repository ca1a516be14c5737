"""Failures of our own players are failures, not results.

- Our UCI engine (one that names itself ``treestrap ...``) that reports a failed search
  (``info string error ...``, then a legal move, as ``treestrap uci`` does) or crashes
  stops the tournament with its error line and its traceback; an external engine that
  does the same plays on or forfeits, as before.
- An in-process player's illegal or missing move raises with the position and the move.

The engines are the toy programs of ``tests/engines`` and stand-ins: nothing searches.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import chess
import pytest

from treestrap.cli import main
from treestrap.play import game as game_module
from treestrap.play.errors import ERROR_FILE, PlayerFailed
from treestrap.play.game import GameRecord, GameSetup, play_game
from treestrap.play.openings import load_openings
from treestrap.play.players import IN_PROCESS, UCI, PlayerSpec, parse_player
from treestrap.play.results_db import ResultsDB
from treestrap.play.sessions import Reply
from treestrap.play.timecontrol import TimeControl

TESTS = Path(__file__).resolve().parent
ENGINES = TESTS / "engines"
INJECTED = "info string error: search failed: RuntimeError: injected search failure"


def toy(name: str, *options: str) -> str:
    script = ENGINES / "toy_uci.py"
    line = " ".join(shlex.quote(w) for w in (sys.executable, str(script), *options))
    return f"{name}=uci:{line}"


def tournament(out: Path, *players: str) -> int:
    base = ["tournament", *players, "--out", str(out), "--tc", "depth=1"]
    return main([*base, "--max-plies", "16", "--workers", "1", "--quiet"])


# --- our UCI engine ----------------------------------------------------------------------


def test_our_uci_engine_reporting_a_failed_search_stops_the_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    # Its first go is the warm-up every engine of ours gets; the third fails.
    assert tournament(out, toy("ours", "--our-name", "--error-after", "2"), toy("steady")) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: our engine ours (id name treestrap toy) failed (ours - ")
    assert f'it sent "{INJECTED}"' in err[-1]
    assert err[-1].endswith(f"(the run stopped; traceback in {out / ERROR_FILE})")
    saved = (out / ERROR_FILE).read_text()
    # The engine's own traceback, from its standard error, beside the runner's.
    assert "the engine's standard error" in saved and 'File "toy_uci.py", in search' in saved
    assert not any("given up" in line for line in err)  # stopped at once, not retried
    with ResultsDB.open(out) as db:
        assert db.games() == []  # the failed game is no result


def test_an_external_engine_with_the_same_line_plays_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not ours: its error lines are its own business, its legal moves count."""
    out = tmp_path / "run"
    assert tournament(out, toy("other", "--error-after", "1"), toy("steady")) == 0
    assert "2 games in" in capsys.readouterr().out
    assert not (out / ERROR_FILE).exists()


def test_our_uci_engine_that_crashes_stops_the_game_and_an_external_one_forfeits() -> None:
    opening = load_openings(None)[0]
    steady = parse_player(toy("steady"))
    ours = parse_player(toy("ours", "--our-name", "--crash-after", "2"))
    with pytest.raises(PlayerFailed, match=r"^our engine ours .*EngineTerminatedError"):
        play_game(GameSetup(ours, steady, opening, TimeControl(depth=1)))
    theirs = parse_player(toy("theirs", "--crash-after", "1"))
    record = play_game(GameSetup(theirs, steady, opening, TimeControl(depth=1)))
    assert record.termination == "forfeit: engine crashed (white, theirs)"


# --- in-process players -----------------------------------------------------------------


class StandIn:
    """A player whose every move is ``move`` (None: no move)."""

    def __init__(self, name: str, move: str | None, ours: bool) -> None:
        self.name, self.move, self.ours = name, move, ours

    def play(self, board: chess.Board, clocks: dict) -> Reply:
        if self.move is None:
            return Reply(None, None)
        legal = min(board.legal_moves, key=lambda m: m.uci())
        return Reply(chess.Move.from_uci(self.move) if self.move else legal, 0.0)

    def kill(self) -> None:
        pass

    def close(self) -> None:
        pass


def _stand_in_game(monkeypatch: pytest.MonkeyPatch, kind: str, move: str | None) -> GameRecord:
    """White plays its first legal move; black (of ``kind``) plays ``move``."""

    def fake_open(spec: PlayerSpec, tc: TimeControl, slot: int = 0, **_: object) -> StandIn:
        return StandIn(spec.name, "" if spec.name == "w" else move, spec.kind == IN_PROCESS)

    monkeypatch.setattr(game_module, "open_session", fake_open)
    white, black = PlayerSpec("w", UCI), PlayerSpec("b", kind)
    return play_game(GameSetup(white, black, load_openings(None)[0], TimeControl(depth=1)))


def test_an_in_process_illegal_or_missing_move_raises_with_the_fen_and_the_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(PlayerFailed) as caught:
        _stand_in_game(monkeypatch, IN_PROCESS, "a1a8")
    message = str(caught.value)
    assert message.startswith("in-process player b played an illegal move a1a8 in ")
    fen = message.split(" in ", 1)[1].split(" (w - b, opening ")[0]
    assert chess.Board(fen).turn == chess.BLACK  # the position it was asked to move in
    assert "the game: " in caught.value.details
    with pytest.raises(PlayerFailed, match=r"^in-process player b gave no move in .* \(w - b"):
        _stand_in_game(monkeypatch, IN_PROCESS, None)


def test_an_external_illegal_move_is_still_a_forfeit(monkeypatch: pytest.MonkeyPatch) -> None:
    record = _stand_in_game(monkeypatch, UCI, "a1a8")
    assert record.termination == "forfeit: illegal move a1a8 (black, b)"

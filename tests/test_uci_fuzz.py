"""``treestrap uci`` fed generated command sequences: valid, near-valid and garbage
lines (see ``tests/uci_fuzzing.py`` for the generators and the checks made after each
sequence). A bounded number of sequences per test keeps CI short; ``python
benchmarks/uci_fuzz.py --sequences N`` runs as many as one likes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uci_fuzzing import (
    UciDriver,
    control_line,
    expected_fens,
    fen_board,
    garbage_line,
    is_safe,
    protocol_line,
    sequences,
)

#: Fixed examples (derandomized) so that CI runs the same sequences each time; the
#: benchmark explores with seeds.
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def fuzz(
    workdir: Path, line: st.SearchStrategy[bytes], examples: int, encoding: str | None = None
) -> None:
    """Run ``examples`` sequences of ``line`` through one engine process."""
    checked: list[int] = []  # lines sent, per sequence run and checked
    with UciDriver(workdir, encoding) as driver:

        @settings(FUZZ, max_examples=examples)
        @given(sequences(line))
        def check(sequence: list[bytes]) -> None:
            driver.run(sequence)
            checked.append(len(sequence))

        check()
    assert len(checked) >= examples and sum(checked) >= examples, checked


def test_protocol_sequences(tmp_path: Path) -> None:
    fuzz(tmp_path, protocol_line, 60)


def test_garbage_sequences(tmp_path: Path) -> None:
    fuzz(tmp_path, garbage_line, 40)


def test_search_control_sequences(tmp_path: Path) -> None:
    fuzz(tmp_path, control_line, 30)


def test_garbage_on_an_ascii_console(tmp_path: Path) -> None:
    # Echoing a bad line must not make the engine fall silent where its output cannot
    # encode what it read (a replacement character under cp1252 or ASCII).
    fuzz(tmp_path, garbage_line, 10, encoding="ascii")


# --- the oracle itself -----------------------------------------------------------------

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.mark.parametrize(
    ("line", "fen"),
    [
        ("position startpos", START),
        (
            "position startpos moves e2e4",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        ),
        ("position fen 4k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        ("position startpos moves e2e4 e2e4", None),  # illegal second move
        ("position startpos moves e1h1", None),  # castling is e1g1 in UCI
        ("position startpos moves 0000", None),
        ("position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 0", None),  # fullmove from 1
        ("position fen 4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", None),  # no rooks to castle with
        ("position fen 4k3/8/8/8/8/8/8/8 w - - 0 1", None),  # a king missing
        ("position fen 4k3/8/8/8/8/8/8/4K3 w - - +1 1", None),
        ("position fen 4k3/8/8/8/8/8/8/4K3", None),
        ("position startpos e2e4", None),
    ],
)
def test_oracle_verdicts(line: str, fen: str | None) -> None:
    before = frozenset(["before"])
    assert expected_fens([line], before) == (frozenset([fen]) if fen else before)


def test_oracle_leaves_open_what_the_contract_does_not_say() -> None:
    # "44" for "8" in a rank: either accepted (as 8) or refused.
    line = "position fen 4k3/44/8/8/8/8/8/4K3 w - - 0 1"
    assert expected_fens([line], frozenset(["x"])) == {"x", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"}
    assert fen_board("4k3/44/8/8/8/8/8/4K3 w - - 0 1")[1] is False


def test_unsafe_lines_are_never_sent() -> None:
    for line in ["quit", "  quit now", "bench", "bench 5", "setoption name Hash value 4096"]:
        assert not is_safe(line), line
    for line in ["bench 1", "bench 0", "bench x", "setoption name Hash value 16", "quitting"]:
        assert is_safe(line), line

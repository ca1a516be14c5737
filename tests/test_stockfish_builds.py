"""The Stockfish builds the speed benchmark compares with (``benchmarks/stockfish_builds.py``):
each build's line from its ``compiler`` command, which builds run here, and the replay that
counts a ``treestrap uci`` search's nodes by Stockfish's rule. No timing."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import chess
import chess.engine
import pytest
from conftest import REPO_ROOT, require_binary

# a benchmark's module: found once its folder is on the path
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from engine_vs_stockfish import POSITIONS, Measure, recount, treestrap_command
from stockfish_builds import (
    BuildProbeError,
    judge_command,
    native_path,
    parse_compiler_output,
    probe,
    select_builds,
)

#: What Stockfish 15.1's ``compiler`` command prints (Debian's build).
DEBIAN_OUTPUT = """Stockfish 15.1 by the Stockfish developers (see AUTHORS file)

Compiled by g++ (GNUC) 12.2.0 on Linux
Compilation settings include:  64bit SSE2
__VERSION__ macro expands to: 12.2.0
"""


def fake_engine(folder: Path, name: str, body: str) -> Path:
    """An executable shell script standing for a Stockfish binary."""
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_parse_compiler_output() -> None:
    assert parse_compiler_output(DEBIAN_OUTPUT) == ("64bit SSE2", "g++ (GNUC) 12.2.0 on Linux")
    with pytest.raises(BuildProbeError, match="Compilation settings"):
        parse_compiler_output("id name Something Else\nuciok\n")


def test_debian_build_line_says_64bit() -> None:
    build, compiled_by = probe(require_binary("stockfish"))
    assert "64bit" in build.split()
    assert compiled_by


#: What a build for AVX2 processors prints (as ``make build ARCH=x86-64-avx2`` makes it).
NATIVE_OUTPUT = DEBIAN_OUTPUT.replace("64bit SSE2", "64bit AVX2 SSE41 SSSE3 SSE2 POPCNT")


def test_the_native_build_is_the_one_a_user_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert native_path({"TREESTRAP_NATIVE_STOCKFISH": "/opt/sf"}) == Path("/opt/sf")
    monkeypatch.delenv("TREESTRAP_NATIVE_STOCKFISH", raising=False)
    assert native_path() is None
    debian = fake_engine(tmp_path, "debian-sf", f"cat <<'EOF'\n{DEBIAN_OUTPUT}EOF")
    lines: list[str] = []
    builds = select_builds(str(debian), report=lines.append)
    assert [b.label for b in builds] == ["Debian"]
    assert len(lines) == 1 and "none given" in lines[0]


def test_both_builds_selected_when_a_native_one_is_named(tmp_path: Path) -> None:
    debian = fake_engine(tmp_path, "debian-sf", f"cat <<'EOF'\n{DEBIAN_OUTPUT}EOF")
    native = fake_engine(tmp_path, "native-sf", f"cat <<'EOF'\n{NATIVE_OUTPUT}EOF")
    lines: list[str] = []
    builds = select_builds(str(debian), native, report=lines.append)
    assert [b.label for b in builds] == ["Debian", "native"], lines
    debian_build, native_build = builds
    assert "64bit" in debian_build.build and "AVX2" not in debian_build.build
    assert "AVX2" in native_build.build and "POPCNT" in native_build.build
    assert Path(native_build.command) == native
    assert "64bit SSE2" in debian_build.describe()
    assert native_build.command in native_build.describe()
    assert lines == []


def test_a_missing_native_build_is_left_out_with_a_line(tmp_path: Path) -> None:
    debian = fake_engine(tmp_path, "debian-sf", f"cat <<'EOF'\n{DEBIAN_OUTPUT}EOF")
    lines: list[str] = []
    builds = select_builds(str(debian), tmp_path / "nowhere" / "sf", report=lines.append)
    assert [(b.label, b.build) for b in builds] == [("Debian", "64bit SSE2")]
    assert len(lines) == 1 and "native" in lines[0] and "not found" in lines[0]


def test_illegal_instruction_is_named(tmp_path: Path) -> None:
    # A build for instructions the processor lacks dies of SIGILL at its first use.
    crashing = fake_engine(tmp_path, "avx512-sf", "kill -ILL $$")
    with pytest.raises(BuildProbeError, match="Illegal instruction"):
        probe(str(crashing))
    lines: list[str] = []
    debian = fake_engine(tmp_path, "debian-sf", f"cat <<'EOF'\n{DEBIAN_OUTPUT}EOF")
    builds = select_builds(str(debian), crashing, report=lines.append)
    assert [b.label for b in builds] == ["Debian"]
    assert "Illegal instruction" in lines[0]


def test_judge_is_the_native_build_where_it_runs(tmp_path: Path) -> None:
    debian = fake_engine(tmp_path, "debian-sf", f"cat <<'EOF'\n{DEBIAN_OUTPUT}EOF")
    native_output = DEBIAN_OUTPUT.replace("64bit SSE2", "64bit AVX2 SSE41 SSSE3 SSE2 POPCNT")
    native = fake_engine(tmp_path, "native-sf", f"cat <<'EOF'\n{native_output}EOF")
    assert judge_command(str(debian), native, report=lambda _: None) == str(native)
    missing = tmp_path / "nowhere" / "sf"
    assert judge_command(str(debian), missing, report=lambda _: None) == str(debian)
    with pytest.raises(BuildProbeError, match="neither"):
        judge_command(str(missing), missing, report=lambda _: None)


def test_other_failures_are_named(tmp_path: Path) -> None:
    not_stockfish = fake_engine(tmp_path, "other", "echo 'id name Other'")
    with pytest.raises(BuildProbeError, match="no 'Compilation settings"):
        probe(str(not_stockfish))
    failing = fake_engine(tmp_path, "failing", "exit 3")
    with pytest.raises(BuildProbeError, match="exit status 3"):
        probe(str(failing))
    plain = tmp_path / "plain"
    plain.write_text("not a program\n", encoding="utf-8")
    if os.geteuid() != 0:  # root may run anything
        with pytest.raises(BuildProbeError, match="not executable"):
            probe(str(plain))


def test_replay_of_a_uci_search_finds_its_tree() -> None:
    # The benchmark's revisits come from replaying each `treestrap uci` search in its
    # own process: the replay must search the same tree as the UCI engine did.
    measures = {}
    with chess.engine.SimpleEngine.popen_uci(treestrap_command("hand-set"), timeout=600) as uci:
        uci.configure({"Hash": 16})
        for name in ("start", "kiwipete"):
            board = chess.Board(POSITIONS[name])
            info = uci.analyse(board, chess.engine.Limit(depth=6), game=object())
            measures[name] = Measure(int(info["nodes"]), 1.0, int(info["depth"]))
    recount("hand-set", measures, 16)
    for m in measures.values():
        assert m.same_tree
        assert 0 < m.revisits < m.nodes
        assert m.stockfish_rule_nps == m.nodes - m.revisits

"""Fuzz ``treestrap uci`` for longer than CI does: the generators and checks of
``tests/uci_fuzzing.py`` (valid, near-valid and garbage command sequences; after each,
``readyok`` in time, the right ``d`` FEN, a legal ``go depth 1``, no traceback, still
alive), run for as many sequences as asked.

    python benchmarks/uci_fuzz.py --sequences 5000 --seed 1 [--encoding ascii]

Prints ``sequences N, lines L, failures F`` at the end, and each failure's reason and
reproducer lines (a failed sequence restarts the engine and the run goes on).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

# The generators live with the tests (they are test code, not part of the package).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from uci_fuzzing import FuzzFailure, UciDriver, any_sequence

#: Progress is printed every this many sequences.
REPORT_EVERY = 250


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=1000, help="sequences to try")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generator")
    parser.add_argument(
        "--encoding", help="the engine's console encoding (PYTHONIOENCODING), e.g. ascii"
    )
    args = parser.parse_args(argv)

    failures: list[str] = []
    done = 0
    start = time.monotonic()
    with (
        tempfile.TemporaryDirectory() as workdir,
        UciDriver(Path(workdir), args.encoding) as driver,
    ):

        @seed(args.seed)
        @settings(
            max_examples=args.sequences,
            deadline=None,
            database=None,
            phases=[Phase.generate],  # no shrinking: failures are caught, not raised
            suppress_health_check=list(HealthCheck),
        )
        @given(any_sequence)
        def run(sequence: list[bytes]) -> None:
            nonlocal done
            try:
                driver.run(sequence)
            except FuzzFailure as exc:
                failures.append(str(exc))
                print(f"failure {len(failures)}:\n{exc}\n", flush=True)
            done += 1
            if done % REPORT_EVERY == 0:
                print(
                    f"... {done} sequences, {len(failures)} failures, "
                    f"{time.monotonic() - start:.0f} s",
                    flush=True,
                )

        run()
        lines = driver.lines_sent
    print(f"sequences {done}, lines {lines}, failures {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

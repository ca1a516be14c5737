"""Ship a weight file as one of the package's presets, exactly as the tools wrote it.

    python tools/ship_preset.py FILE --preset NAME

copies FILE into ``src/treestrap/evaluation/data/NAME.npz`` with its weights and its
metadata unchanged but for the preset's name. It refuses a file without a provenance
record (one not written by ``treestrap train``, ``distill fit`` or another command that
records one), a file whose weights no longer match the hash in that record, one whose
chain its audit finds a problem in (a self-play flag the chain's games do not bear out,
a parent's record of other weights: :mod:`treestrap.provenance_audit`), and one made by
code that is not in the history (its own step's commit ``-dirty`` or ``unknown``): no
figure or fact of a shipped file is typed by hand. What a preset was measured at goes
into the docs, with the commands that measured it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from treestrap.evaluation.provenance import record_of, weights_sha256
from treestrap.evaluation.weight_file_format import read_weight_file, write_weight_file
from treestrap.provenance_audit import audit_chain, commit_is_committed

DATA = Path(__file__).resolve().parents[1] / "src/treestrap/evaluation/data"


def ship(source: Path, preset: str, data: Path = DATA) -> Path:
    """Copy ``source`` into ``data`` as ``preset``; ``ValueError`` says why it cannot."""
    meta, weights = read_weight_file(source)
    metadata = meta.get("metadata", {})
    record = record_of(metadata)
    if record is None:
        raise ValueError(f"{source}: no provenance record; ship only files the tools wrote")
    if record.get("sha256") != weights_sha256(weights):
        raise ValueError(f"{source}: its weights differ from the hash its provenance records")
    audit = audit_chain(record, weights_sha256(weights))
    if audit.problems:
        more = f" (and {len(audit.problems) - 1} more)" if len(audit.problems) > 1 else ""
        raise ValueError(f"{source}: {audit.problems[0]}{more}")
    if not commit_is_committed(record.get("commit")):
        raise ValueError(
            f"{source}: made from uncommitted code (commit {record.get('commit', '?')}): "
            "commit the code and make the file again"
        )
    meta = {**meta, "metadata": {**metadata, "preset": preset}}
    target = data / f"{preset}.npz"
    write_weight_file(target, weights, meta)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help="a weight file written by the tools")
    parser.add_argument("--preset", required=True, help="the preset's name")
    args = parser.parse_args()
    try:
        print(f"wrote {ship(args.file, args.preset)}")
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

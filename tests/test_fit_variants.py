"""The variants of ``benchmarks/bootstrap_fit_variants.py``: fit settings changed by
``key=value`` and ``chunks=K`` (the learning curve's training chunks), bad ones refused."""

from __future__ import annotations

import sys

import pytest
from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from bootstrap_fit_variants import variant_settings

from treestrap.distill.perspective_fit import PerspectiveFitSettings


def test_base_changes_nothing_and_keeps_every_chunk() -> None:
    base = PerspectiveFitSettings()
    assert variant_settings(base, "base") == (base, None)


def test_settings_and_chunks_combine() -> None:
    base = PerspectiveFitSettings()
    settings, chunks = variant_settings(base, "width=512,chunks=45")
    assert chunks == 45
    assert settings.width == 512 and settings.epochs == base.epochs


@pytest.mark.parametrize("text", ["chunks=0", "chunks=many", "depth=3", "width="])
def test_bad_variants_are_refused(text: str) -> None:
    with pytest.raises(SystemExit, match="not KEY=VALUE"):
        variant_settings(PerspectiveFitSettings(), text)

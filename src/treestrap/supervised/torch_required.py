"""PyTorch is an optional extra: say how to install it instead of failing on import."""

from __future__ import annotations

from types import ModuleType

INSTALL_HINT = 'PyTorch is not installed: pip install -e ".[torch]" (the CPU build, torch==2.13.0)'


class TorchMissing(RuntimeError):
    """Raised where a supervised command needs PyTorch and it is not installed."""


def require_torch() -> ModuleType:
    """The ``torch`` module, or :class:`TorchMissing` with the install command."""
    try:
        import torch
    except ImportError as exc:
        raise TorchMissing(INSTALL_HINT) from exc
    return torch

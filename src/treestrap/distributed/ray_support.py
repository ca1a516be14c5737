"""Ray as an optional dependency: a clear message when it is missing, and one way of
joining (or starting) a cluster.

``ray_session(address)`` joins the cluster at ``address`` (``ray start --head`` prints
it), or starts a local one on this machine when there is none. A session that is
already connected (a script or a test that called ``ray.init`` itself) is used as it
is and left running.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from typing import Any

INSTALL_HINT = (
    "the Ray backend needs the 'ray' package: pip install 'treestrap[ray]' "
    '(in a checkout: pip install -e ".[ray]")'
)
BACKENDS = ("local", "ray")


class RayMissing(ValueError):
    """``--backend ray`` without Ray installed (a ValueError: bad input, exit 2)."""


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayMissing` saying how to install it."""
    if not ray_available():
        raise RayMissing(INSTALL_HINT)
    import ray

    return ray


def check_backend(backend: str, address: str | None) -> None:
    """``ValueError`` for an unknown backend, an address without Ray, or missing Ray."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "local" and address is not None:
        raise ValueError("--address names a Ray cluster: it needs --backend ray")
    if backend == "ray":
        require_ray()


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Connected to a Ray cluster for the block; yields the ``ray`` module."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": "warning",
        "log_to_driver": True,
    }
    if address is not None:
        options["address"] = address
    else:
        # A cluster of our own on this machine, even if RAY_ADDRESS names another.
        options["address"] = "local"
        if num_cpus is not None:
            options["num_cpus"] = num_cpus
    ray.init(**options)
    try:
        yield ray
    finally:
        ray.shutdown()

"""Ray as an optional dependency: a clear message when it is missing, and one way of
joining (or starting) a cluster.

``ray_session(address)`` joins the cluster at ``address`` (``ray start --head`` prints
it), or starts a local one on this machine when there is none. A session that is
already connected (a script or a test that called ``ray.init`` itself) is used as it
is and left running.

A local cluster listens on the loopback interface only: anyone who can reach a Ray
cluster's ports can run code on it. On Linux Ray announces the machine's network
address, and its servers listen on every interface, even when
``_node_ip_address="127.0.0.1"`` is asked for; only its single-machine mode (the one
Ray uses on macOS and Windows) keeps every process on 127.0.0.1, so the session turns
that mode on while it lasts and checks the address the cluster bound before any work
is sent. ``docs/scale-out.md`` says how to run and join a cluster of several machines.
"""

from __future__ import annotations

import contextlib
import importlib.util
import ipaddress
import os
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


#: Ray's switch for clusters of several machines (on by default on Linux only). Off,
#: every Ray process announces and binds 127.0.0.1. Its Python processes read it when
#: they import Ray; this one has read it already, hence ``_single_machine``.
MULTI_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def _single_machine() -> Iterator[None]:
    """Ray in single-machine mode for the block: the environment for the processes it
    starts, its constant for this one; both restored after (a later session may join
    a remote cluster, which needs this machine's network address)."""
    from ray._private import ray_constants as constants

    saved_env, saved_flag = os.environ.get(MULTI_MACHINE_ENV), constants.ENABLE_RAY_CLUSTER
    os.environ[MULTI_MACHINE_ENV] = "0"
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(MULTI_MACHINE_ENV, None)
        else:
            os.environ[MULTI_MACHINE_ENV] = saved_env


def bound_hosts(ray: Any) -> list[str]:
    """The hosts the connected cluster's control store and nodes listen on."""
    hosts = [ray.get_runtime_context().gcs_address.rsplit(":", 1)[0]]
    hosts += [node["NodeManagerAddress"] for node in ray.nodes() if node.get("Alive")]
    return hosts


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


@contextlib.contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Connected to a Ray cluster for the block; yields the ``ray`` module. Without
    ``address``, a cluster of this machine's own that listens on 127.0.0.1 only."""
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, Any] = {
        "include_dashboard": False,
        # were the dashboard turned on, it too would serve this machine only
        "dashboard_host": "127.0.0.1",
        "logging_level": "warning",
        "log_to_driver": True,
    }
    with contextlib.ExitStack() as stack:
        if address is not None:
            options["address"] = address
        else:
            # A cluster of our own on this machine, even if RAY_ADDRESS names another.
            options["address"] = "local"
            if num_cpus is not None:
                options["num_cpus"] = num_cpus
            stack.enter_context(_single_machine())
        ray.init(**options)
        stack.callback(ray.shutdown)
        if address is None and not all(map(is_loopback, hosts := bound_hosts(ray))):
            raise RuntimeError(
                f"the local Ray cluster listens on {', '.join(sorted(set(hosts)))}, not "
                "on 127.0.0.1 only: this Ray version ignores its single-machine mode "
                f"({MULTI_MACHINE_ENV}=0); start a cluster with ray start and pass "
                "its address instead"
            )
        yield ray

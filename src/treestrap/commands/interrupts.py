"""A stop by ``kill`` (SIGTERM) handled as Ctrl-C is, for the commands that leave
something resumable: they say how to go on and stop their worker processes, where
the default SIGTERM would end the command at once and leave its workers running."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``KeyboardInterrupt`` (main thread only: signal
    handlers can be set nowhere else)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

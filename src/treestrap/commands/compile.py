"""``treestrap compile``: fill the compile cache with every kernel ``treestrap uci`` uses,
so that the first engine started afterwards (in an image, after an install) plays at
full strength from its first move. The engine does the same in a background job when it
finds the cache cold (:mod:`treestrap.engine.compile_job`); this is that job in the
foreground, with a progress bar.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compile",
        help="compile the engine's kernels into the cache (for images and installs)",
        description="Compile every kernel a treestrap uci session uses into the compile "
        "cache (a minute or two on 2 cores), so that an engine started later loads them "
        "in a second or two. Waits for a compile an engine has started in the background "
        "rather than compile twice. Nothing to do when the cache holds them already.",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_compile)


def run_compile(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from treestrap.engine import compile_job

    directory = compile_job.cache_dir()
    if directory is None:
        print(
            "error: no compile cache (no writable cache directory, or NUMBA_DISABLE_JIT "
            "is set): each process compiles for itself",
            file=sys.stderr,
        )
        return 2
    print(f"compile cache: {directory}")
    if compile_job.is_ready():
        print("the cache holds every kernel already")
        return 0
    start = time.monotonic()
    bar = tqdm(unit=" kernels", desc="compiling", disable=args.quiet, file=sys.stderr)
    listener = _kernel_counter(bar)
    from numba.core import event

    event.register("numba:compile", listener)
    try:
        compiled = compile_job.run_job(lambda label: bar.set_description(label))
    finally:
        event.unregister("numba:compile", listener)
        bar.close()
    seconds = time.monotonic() - start
    if compiled:
        print(f"compiled {listener.kernels} kernels in {seconds:.1f} s")
    else:
        print(f"the cache holds every kernel already ({seconds:.1f} s)")
    return 0


def _kernel_counter(bar: Any) -> Any:
    """A numba event listener that advances the bar at each kernel compiled (made
    here: numba is imported only when the command runs)."""
    from numba.core import event

    class Counter(event.Listener):
        kernels = 0

        def on_start(self, ev: event.Event) -> None:
            pass

        def on_end(self, ev: event.Event) -> None:
            self.kernels += 1
            bar.update(1)

    return Counter()

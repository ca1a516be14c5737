"""The ``treestrap`` command line: the parser and the dispatch, nothing else.

Each subcommand is a module of :mod:`treestrap.commands` with ``add_parser(sub)``, which
registers its options and its handler; the handler imports what it needs when it runs,
so that ``treestrap --help`` stays instant.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from importlib import import_module

#: The subcommands, in the order ``treestrap --help`` lists them.
COMMANDS = (
    "perft",
    "weights",
    "train",
    "uci",
    "compile",
    "bench",
    "tournament",
    "rate",
    "curve",
    "reproduce",
    "dataset",
    "supervised",
    "distill",
    "bootstrap",
    "data",
    "measure",
    "connect4",
)


class _VersionAction(argparse.Action):
    """``--version``: the version and the commit, found only when asked for (it runs
    git, which every other command can do without)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)
        self.help = "print the version and the git commit of the code, and exit"

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from treestrap.version import version_line

        print(version_line())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treestrap",
        description="Learn a chess evaluation function from game-tree search.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        import_module(f"treestrap.commands.{command}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from treestrap.evaluation.provenance import set_command_line  # light: no numba

    # The command that weight files record: what this call was given, not the process's.
    set_command_line(sys.argv[1:] if argv is None else list(argv))
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    if getattr(args, "depth", None) is not None and args.depth < 0:
        parser.error("--depth must be >= 0")
    from treestrap.play.errors import TournamentStopped  # light: no chess, no numba

    try:
        return int(args.func(args))
    except TournamentStopped as exc:
        # Games given up, or our own player raised: one line, no result made from it.
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`treestrap ... | head`): stop quietly, as Unix tools do,
        # and keep Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        # A full disk, a read-only or vanished directory: the file and the reason, no
        # traceback. Commands that leave something resumable add a note saying how.
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        for note in getattr(exc, "__notes__", ()):
            print(note, file=sys.stderr)
        return 2


#: Errors that mean the file could not be written, whatever the call was.
_WRITE_ERRNOS = frozenset(
    {errno.ENOSPC, errno.EROFS, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}
)


def describe_os_error(exc: OSError) -> str:
    """``cannot write runs/x/metrics.jsonl: No space left on device`` and the like."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is None:
        return reason
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, bytes) else exc.filename
    verb = "cannot write " if exc.errno in _WRITE_ERRNOS else ""
    return f"{verb}{name}: {reason}"


if __name__ == "__main__":
    sys.exit(main())

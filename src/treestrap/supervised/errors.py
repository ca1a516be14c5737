"""The one error type of supervised training, reports and conversion: its message is
what the command line prints after ``error:`` (exit code 2), so it must say what is wrong
and what to do, never show a traceback."""

from __future__ import annotations


class SupervisedError(ValueError):
    """Bad input to a supervised command: a dataset, a run, a checkpoint or an option."""

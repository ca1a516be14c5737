"""The one exception of the dataset package (re-exported by :mod:`.store`).

Its message is the whole reason, written for the user: the command line prints it as
``error: MESSAGE`` and exits with code 2.
"""

from __future__ import annotations


class DatasetError(Exception):
    """Bad input to a dataset command, or a dataset that does not match this code."""

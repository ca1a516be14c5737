"""Subcommands of the ``treestrap`` command line, one module each."""

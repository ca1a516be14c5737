"""Subcommands of the ``treestrap`` command line, one module each, every one with
``add_parser(sub)``; :mod:`treestrap.commands.arguments` holds the argument types they
share."""

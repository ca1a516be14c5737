"""One module per paper: the one-command reproductions (``treestrap reproduce NAME``)."""

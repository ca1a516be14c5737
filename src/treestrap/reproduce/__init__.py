"""The one-command reproductions (``treestrap reproduce NAME``), one module or package
per paper, and what they share: ``stages`` (budgets by name, the resumable stage
runner, timings and the directory's JSON files) and ``workers`` (training runs in
worker processes)."""

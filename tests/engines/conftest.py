"""The toy engines are programs run by the tests, not modules to collect."""

collect_ignore_glob = ["toy_*.py"]

"""Games between players (ordinary Python): player specs and the sessions that run them,
time controls, adjudication, opening books, the one game loop, the worker pool,
tournaments with their SQLite results, and two-engine matches.

Imports point downward only: the engine API, the compiled layers, and ``rating`` for
scores and standings; never ``training`` or anything above it.
"""

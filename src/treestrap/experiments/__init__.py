"""Experiments: training runs, tournaments, reports and plots (ordinary Python)."""

"""Benchmarks (scripts run as ``python bench/<name>.py``); a package only so that mypy tells
``bench/bots.py`` apart from the ``bots`` package."""

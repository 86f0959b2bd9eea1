"""Tournaments: schedule, run (embedded or on a Ray cluster), log to Parquet; the CLI."""

"""A continuous ladder on top of tournaments: versions submitted over time, validation, placement,
matchmade duplicate groups, two rating layers (openskill online, the Plackett-Luce batch fit for the
board) and a settlement on fresh secret boards.  ``cardarena ladder ...`` (cli.py); docs/ladder.md.

spec.py (the TOML spec) -> state.py (versions, states, quotas) -> online.py (openskill) ->
matchmaking.py (seeding, tables) -> tables.py (groups, ratings_online, board Parquet) -> core.py (the
log's view) -> loop.py (``ladder run``) -> settle.py (``ladder close``) -> cli.py.
"""

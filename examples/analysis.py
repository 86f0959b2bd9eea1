# %% [markdown]
# # Analysing a tournament log
#
# A percent-format notebook (`# %%` cells: Jupyter with jupytext, VS Code, or plain
# `python examples/analysis.py DIR [PLOTS_DIR]`).  It reads a tournament log with the Python API
# (`tournaments.api.open_log`, the log `cardarena query` reads) and answers three questions, each
# with a DuckDB query and a Polars query that must agree:
#
# 1. the win rate of each seat, per game;
# 2. how long matches are (moves per match), per game;
# 3. which rule events fired, and which bot triggered them (`events.bot`).
#
# Two plots are saved with Altair (HTML files that open in a browser).  Lists are 1-based in DuckDB
# (`ranking[seat + 1]`) and 0-based in Polars (`.list.get(seat)`): data/README.md.

# %%
import sys
from pathlib import Path

import altair as alt
import polars as pl

from tournaments.api import open_log

DIR = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("data/demo")
PLOTS = Path(sys.argv[2]) if len(sys.argv) > 2 else DIR / "_plots"
log = open_log(DIR)
matches = log.matches()
print(f"{DIR}: {matches.height} matches of {', '.join(log.games)}")

# %% [markdown]
# ## 1. Win rate by seat, per game
# A seat wins a match when its place (`ranking`, after forfeits) is 1.

# %%
duck_wins = log.sql("""
    SELECT game, s.seat, avg(CASE WHEN ranking[s.seat + 1] = 1 THEN 1.0 ELSE 0.0 END) AS win_rate,
           count(*) AS matches
    FROM matches, LATERAL (SELECT unnest(range(players::BIGINT)) AS seat) s
    GROUP BY ALL ORDER BY game, seat
""")
polars_wins = (
    matches.with_columns(seat=pl.int_ranges(0, pl.col("players").cast(pl.Int64)))
    .explode("seat")
    .with_columns(win=(pl.col("ranking").list.get(pl.col("seat")) == 1).cast(pl.Float64))
    .group_by("game", "seat").agg(win_rate=pl.col("win").mean(), matches=pl.len())
    .sort("game", "seat")
)
assert duck_wins["win_rate"].to_list() == polars_wins["win_rate"].to_list()
print(duck_wins)

# %% [markdown]
# ## 2. Match length (moves per match)

# %%
duck_len = log.sql("""
    SELECT game, count(*) AS matches, min(moves) AS shortest, median(moves) AS median, max(moves) AS longest
    FROM matches GROUP BY game ORDER BY game
""")
polars_len = (matches.group_by("game")
              .agg(matches=pl.len(), shortest=pl.col("moves").min(), median=pl.col("moves").median(),
                   longest=pl.col("moves").max())
              .sort("game"))
assert duck_len["median"].to_list() == polars_len["median"].to_list()
print(duck_len)

# %% [markdown]
# ## 3. The rule events that fired, and the bot that triggered each

# %%
duck_events = log.sql("""
    SELECT game, event, bot, count(*) AS times FROM events GROUP BY ALL ORDER BY times DESC, event, bot
""")
polars_events = (log.events().group_by("game", "event", "bot").agg(times=pl.len())
                 .sort(["times", "event", "bot"], descending=[True, False, False], nulls_last=False))
assert sorted(duck_events.rows()) == sorted(polars_events.select(duck_events.columns).rows())
print(duck_events)

# %% [markdown]
# ## Plots

# %%
PLOTS.mkdir(parents=True, exist_ok=True)
wins_chart = alt.Chart(duck_wins.with_columns(pl.col("seat").cast(pl.Utf8))).mark_bar().encode(
    x=alt.X("seat:N", title="seat"), y=alt.Y("win_rate:Q", title="win rate"), column="game:N",
).properties(title="Win rate by seat")
wins_chart.save(PLOTS / "win_rate_by_seat.html")
length_chart = alt.Chart(matches.select("game", "moves")).mark_bar().encode(
    x=alt.X("moves:Q", bin=alt.Bin(maxbins=30), title="moves per match"),
    y=alt.Y("count():Q", title="matches"),
    color="game:N",
).properties(title="Match length")
length_chart.save(PLOTS / "match_length.html")
print(f"plots: {PLOTS / 'win_rate_by_seat.html'}, {PLOTS / 'match_length.html'}")

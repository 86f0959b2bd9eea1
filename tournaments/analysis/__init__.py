"""Analysis of tournament logs: DuckDB views and Polars frames (:mod:`.views`), ratings with honest
uncertainty (:mod:`.ratings`), replay verification and invariant SQL (:mod:`.verify`,
``queries/*.sql``), rule-event coverage (:mod:`.coverage`) and a coverage-guided rule fuzzer
(:mod:`.fuzz`).  Command line: ``cardarena query|rank|verify|coverage|fuzz`` (:mod:`.cli`).

Notebook use::

    from tournaments.analysis import open_log
    log = open_log("data/demo")
    log.matches()                  # polars.DataFrame
    log.sql("SELECT game, count(*) FROM matches GROUP BY game")
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tournaments.analysis.views import LogError, TournamentLog, open_log

__all__ = ["LogError", "TournamentLog", "open_log"]


def __getattr__(name: str) -> Any:
    # lazy: `cardarena games` must not pay for pyarrow/duckdb imports
    if name in __all__:
        from tournaments.analysis import views
        return getattr(views, name)
    raise AttributeError(name)

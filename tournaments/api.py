"""The Python API of a tournament: run one and read its log, with the guarantees of the CLI.

::

    from tournaments.api import run_tournament, open_log

    log = run_tournament("examples/demo.toml", out="data/demo")   # = cardarena tournament run SPEC --out
    log.sql("SELECT bot, event, count(*) FROM events GROUP BY ALL")   # a Polars DataFrame
    log = open_log("data/demo")                                      # a finished (or running) one

:func:`run_tournament` is what ``cardarena tournament run`` runs: the spec is validated the same way
(:class:`~tournaments.spec.SpecError`, one line naming the field), the same output layout, manifest,
secret and seeds, the same refusals (:class:`~tournaments.runners.TournamentError`: another
tournament in ``out``, a spec changed since it started), the same resumability (run it again into the
same ``out`` and it plays only the matches not yet logged; a finished tournament plays none), each
match logged exactly once.  It returns the log opened and checked by :func:`open_log` (every part
readable and matching its digest record), which is what ``cardarena query`` reads: the views
``moves``, ``events``, ``matches`` and ``deals`` (data/README.md).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from tournaments.analysis.views import LogError, TournamentLog
from tournaments.analysis.views import open_log as _open_log
from tournaments.log import TABLES
from tournaments.spec import Spec, SpecError, load_spec, parse_spec

Log = TournamentLog
"""A tournament log: :class:`tournaments.analysis.views.TournamentLog` (``sql``, ``rows``, ``matches``,
``moves``, ``events``, ``connect``)."""


def run_tournament(spec: Spec | dict[str, Any] | str | os.PathLike[str],
                   out: str | os.PathLike[str] | None = None, *, executor: str = "auto",
                   progress: bool = False, bots_data: str | None = None,
                   tournament_id: str | None = None) -> Log:
    """Run (or resume) the tournament of ``spec`` (a TOML file's path, a dict of its fields, or a parsed
    :class:`~tournaments.spec.Spec`) into ``out`` (default: the spec's ``output``) and return its log.

    ``executor``: ``auto`` (the local pool of processes on this machine, Ray for a cluster), ``local``,
    ``ray`` or ``inline`` (this process).  ``progress``: print the progress line.  Raises
    :class:`~tournaments.spec.SpecError` for a bad spec, :class:`~tournaments.runners.TournamentError`
    for a run the CLI refuses, ``KeyboardInterrupt`` when stopped by Ctrl-C (what was played is kept:
    run it again to resume)."""
    from tournaments.runners import run_tournament as _run
    if isinstance(spec, Spec):
        sp = spec if out is None else replace(spec, output=Path(out))
    elif isinstance(spec, dict):
        sp = parse_spec({**spec, **({"output": str(out)} if out is not None else {})})
    elif isinstance(spec, (str, os.PathLike)):
        sp = load_spec(Path(spec), {"output": str(out)} if out is not None else None)
    else:
        raise SpecError(f"spec: expected a path, a dict or a Spec, got {type(spec).__name__}")
    summary = _run(sp, tournament_id=tournament_id, resume=False, executor=executor, progress=progress,
                   bots_data=bots_data)
    if summary.stopped:
        raise KeyboardInterrupt(f"tournament {summary.tournament} stopped; run it again to resume")
    return _open_log(summary.root)


def open_log(directory: str | os.PathLike[str], tables: tuple[str, ...] = TABLES, check: bool = True) -> Log:
    """Open the tournament log in ``directory`` (a path or an ``s3://`` URI) as ``cardarena query`` does:
    with ``check``, every part is readable, of the schema, and matches its digest record, and a match is
    held by one batch only; :class:`~tournaments.analysis.views.LogError` (one line) otherwise."""
    return _open_log(directory, tables=tables, check=check)


__all__ = ["Log", "LogError", "SpecError", "open_log", "run_tournament"]

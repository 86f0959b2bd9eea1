"""``cardarena query|rank|verify|coverage|fuzz``: the analysis commands.

:func:`register` adds them to the main typer app (``tournaments/cli.py``).  Heavy imports (DuckDB,
Polars, openskill, numpy) happen inside the commands, so ``cardarena games`` stays fast.  Bad input
(no tournament directory, unreadable part, SQL error, unknown game) is one line on stderr and exit
status 2; ``verify`` exits 1 when it finds a violation, ``fuzz`` when it finds a failure.
"""
from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

out = Console(highlight=False, soft_wrap=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr, then exit with ``code`` (SystemExit: the exit status survives
    ``app(standalone_mode=False)`` in ``tournaments.cli.main``, which drops ``typer.Exit``'s)."""
    print(f"cardarena: {message}", file=sys.stderr)
    sys.exit(code)


def _open(root: Path, tables: tuple[str, ...] | None = None) -> Any:
    from tournaments.analysis.views import LogError, open_log
    try:
        return open_log(root, tables=tables) if tables else open_log(root)
    except LogError as e:
        fail(str(e))


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


def query_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory (data/<name>)")],
    sql: Annotated[str, typer.Argument(help="DuckDB SQL over the views moves, matches, events")],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="output format")] = Format.table,
    output: Annotated[Path | None, typer.Option("--out", "-o", help="write to this file (required for "
                                                                    "parquet)")] = None,
    limit: Annotated[int, typer.Option(help="rows shown by --format table (0: all)")] = 100,
) -> None:
    """Run SQL over a tournament's logs (views: moves, matches, events; `game` is a column; and the
    engine's card tables: card_tables, card_ranks)."""
    import duckdb

    from tournaments.analysis.verify import register_card_tables
    from tournaments.analysis.views import LogError
    log = _open(directory)
    if fmt is Format.parquet and output is None:
        fail("--format parquet needs --out FILE.parquet")
    try:
        con = log.connect()
        register_card_tables(con)
        rel = con.sql(sql)
        if rel is None:
            fail("the SQL returned no rows to show (write a SELECT)")
        table = rel.arrow()
        if hasattr(table, "read_all"):
            table = table.read_all()
    except duckdb.Error as e:
        fail(f"SQL error: {e}")
    except LogError as e:
        fail(str(e))
    _write(table, fmt, output, limit)


def _write(table: Any, fmt: Format, output: Path | None, limit: int) -> None:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
    if fmt is Format.parquet:
        assert output is not None
        pq.write_table(table, output, compression="zstd")
        print(f"{table.num_rows} rows written to {output}", file=sys.stderr)
        return
    if fmt is Format.csv:
        if output:
            pacsv.write_csv(table, output)
        else:
            buf = _csv_text(table)
            sys.stdout.write(buf)
        return
    rows = table.to_pylist()
    if fmt is Format.json:
        text = json.dumps(rows, default=str)
        if output:
            output.write_text(text + "\n")
        else:
            print(text)
        return
    t = Table(*table.column_names)
    shown = rows if limit <= 0 else rows[:limit]
    for r in shown:
        t.add_row(*[_cell(v) for v in r.values()])
    console = Console(file=open(output, "w")) if output else out
    console.print(t)
    if len(shown) < len(rows):
        console.print(f"({len(rows)} rows; {len(rows) - len(shown)} not shown: --limit 0 shows all)")


def _csv_text(table: Any) -> str:
    import io

    import pyarrow.csv as pacsv
    buf = io.BytesIO()
    pacsv.write_csv(table, buf)
    return buf.getvalue().decode()


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


# ------------------------------------------------------------------------------------------ rank
def rank_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory")],
    game: Annotated[str | None, typer.Option(help="only this game")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    bootstrap: Annotated[int, typer.Option(help="bootstrap replicates for the 95% intervals")] = 200,
    seed: Annotated[int, typer.Option(help="bootstrap seed")] = 0,
) -> None:
    """Leaderboards per game and overall: openskill, placements, scores, Plackett-Luce strength with
    bootstrap 95% intervals, and head-to-head (pairs whose order is not significant marked ~)."""
    from tournaments.analysis.ratings import rank
    from tournaments.analysis.views import LogError
    log = _open(directory, ("matches",))
    if game is not None and game not in log.games:
        fail(f"no matches of game {game!r} in {directory}; games there: {', '.join(log.games) or 'none'}")
    if bootstrap < 0:
        fail("--bootstrap must be 0 or more")
    try:
        boards = rank(log, game=game, bootstrap=bootstrap, seed=seed)
    except LogError as e:
        fail(str(e))
    if as_json:
        print(json.dumps([b.to_json() for b in boards]))
        return
    if not boards:
        out.print(f"no matches in {directory}")
    for b in boards:
        _print_board(b)


def _print_board(b: Any) -> None:
    t = Table("#", "entrant", "matches", "mean place", "mean score", "openskill mu ± sigma", "ordinal",
              "PL strength [95% CI]", title=f"{b.scope}: {b.matches} matches", title_justify="left")
    place = 1
    for i, e in enumerate(b.entrants):
        if i and not b.entrants[i - 1].tied_with_next:
            place = i + 1
        score = "-" if e.mean_score is None else f"{e.mean_score:.2f}"
        t.add_row(str(place) + ("~" if e.tied_with_next or (i and b.entrants[i - 1].tied_with_next) else ""),
                  e.name, str(e.matches), f"{e.mean_place:.2f}", score, f"{e.mu:.2f} ± {e.sigma:.2f}",
                  f"{e.ordinal:.2f}", f"{e.strength:+.2f} [{e.lo:+.2f}, {e.hi:+.2f}]")
    out.print(t)
    out.print("  ~ : the order against a neighbour is not significant (its bootstrap 95% interval of the "
              "strength difference contains 0)")
    if b.h2h:
        names = [e.name for e in b.entrants]
        cell = {(h.a, h.b): h for h in b.h2h}
        h = Table("head-to-head", *names, title=f"{b.scope}: share of matches row placed above column "
                  "(ties half); ~ = not significant", title_justify="left")
        for a in names:
            row = []
            for c in names:
                if a == c:
                    row.append("")
                    continue
                x = cell.get((a, c))
                if x is not None:
                    row.append(f"{x.score:.2f}" + ("" if x.significant else " ~"))
                elif (y := cell.get((c, a))) is not None:
                    row.append(f"{1 - y.score:.2f}" + ("" if y.significant else " ~"))
                else:
                    row.append("-")
            h.add_row(a, *row)
        out.print(h)
    out.print()


# ------------------------------------------------------------------------------------------ verify
def verify_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory")],
    match: Annotated[str | None, typer.Option("--match", help="replay and check only this match id")] = None,
    workers: Annotated[int | None, typer.Option(help="replay processes (default: the CPUs)")] = None,
    deep: Annotated[bool, typer.Option(help="check the conformance invariants after every action")] = False,
    sql: Annotated[bool, typer.Option("--sql/--no-sql", help="run the invariant SQL queries")] = True,
    replay: Annotated[bool, typer.Option("--replay/--no-replay", help="replay the matches")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    shown: Annotated[int, typer.Option("--show", help="violations printed (0: all)")] = 50,
) -> None:
    """Replay every match (legal actions, final scores and ranking, rule events) and run the per-game
    invariant SQL; print each violation with a command that replays it; exit 1 if there is any."""
    from tournaments.analysis.verify import verify
    from tournaments.analysis.views import LogError
    _open(directory, ("matches",))  # a clear message for a directory that is not a tournament
    try:
        report = verify(directory, workers=workers, deep=deep or match is not None, only=match,
                        replay=replay, sql=sql)
    except LogError as e:
        fail(str(e))
    if match is not None and report.matches == 0 and replay:
        fail(f"no match {match!r} in {directory}")
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        vs = report.violations if shown <= 0 else report.violations[:shown]
        for v in vs:
            print(v.line())
        if len(vs) < len(report.violations):
            print(f"... {len(report.violations) - len(vs)} more (--show 0 prints all)")
        rate = report.moves / report.replay_seconds if report.replay_seconds else 0.0
        print(f"replayed {report.matches} matches, {report.moves} moves in {report.replay_seconds:.1f} s "
              f"({rate:,.0f} moves/s); {len(report.queries)} invariant queries in "
              f"{report.sql_seconds:.1f} s; {len(report.violations)} violation(s)")
    if report.violations:
        sys.exit(1)


# ------------------------------------------------------------------------------------------ coverage
def coverage_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory")],
    game: Annotated[str | None, typer.Option(help="only this game")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Every rule event of each game's RULES.md card with how often it fired; never fired = flagged."""
    from tournaments.analysis.coverage import coverage
    from tournaments.analysis.views import LogError
    log = _open(directory, ("matches", "events"))
    try:
        covs = coverage(log, game)
    except LogError as e:
        fail(str(e))
    if game is not None and not covs:
        fail(f"no matches of game {game!r} in {directory}; games there: {', '.join(log.games) or 'none'}")
    if as_json:
        print(json.dumps([{"game": c.game, "matches": c.matches, "source": c.source, "events": c.events,
                           "missing": c.missing, "extra": c.extra} for c in covs]))
        return
    for c in covs:
        fired = len(c.events) - len(c.missing)
        t = Table("rule event", "fired", "matches", "", title=f"{c.game}: {c.matches} matches, "
                  f"{fired}/{len(c.events)} card events fired (list from {c.source})", title_justify="left")
        for ev in c.events:
            t.add_row(ev["event"], str(ev["fired"]), str(ev["matches"]),
                      "[bold red]NEVER FIRED[/bold red]" if ev["missing"] else "")
        for ev in c.extra:
            t.add_row(ev["event"], str(ev["fired"]), str(ev["matches"]), "(not on the card)")
        out.print(t)


# ------------------------------------------------------------------------------------------ fuzz
def fuzz_cmd(
    game: Annotated[str, typer.Argument(help="game id (see `cardarena games`), or `all`")],
    minutes: Annotated[float, typer.Option(help="time budget per game")] = 1.0,
    seed: Annotated[int, typer.Option(help="fuzzer seed")] = 0,
    out_dir: Annotated[Path, typer.Option("--out", help="where failing cases are saved")] = Path("data/fuzz"),
    replay_case: Annotated[Path | None, typer.Option("--replay", help="replay a saved case (JSON)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Coverage-guided rule fuzzing: random and chaos play steered to the rarest rule events, the
    conformance invariants after every action, failures shrunk to a minimal saved case."""
    from engine import GAMES
    from tournaments.analysis import fuzz
    if replay_case is not None:
        try:
            case = fuzz.load_case(replay_case)
        except (OSError, ValueError) as e:
            fail(f"cannot read case {replay_case}: {e}")
        failure = fuzz.run_case(case)
        if failure is None:
            print(f"case {replay_case}: no failure now (fixed?)")
            return
        print(f"case {replay_case}: {failure.kind}: {failure.message}")
        sys.exit(1)
    games = list(GAMES) if game == "all" else [game]
    for g in games:
        if g not in GAMES:
            fail(f"unknown game {g!r}; known games: {', '.join(GAMES)} (or all)")
    if minutes <= 0:
        fail("--minutes must be positive")
    found = False
    reports = []
    for g in games:
        rep = fuzz.fuzz(g, seconds=minutes * 60, seed=seed, out_dir=out_dir,
                        log=None if as_json else print)
        reports.append(rep)
        found |= bool(rep.failures)
        if not as_json:
            fuzz.print_report(rep, print)
    if as_json:
        print(json.dumps([r.to_json() for r in reports]))
    if found:
        sys.exit(1)


def register(app: typer.Typer) -> None:
    """Add the analysis commands to the ``cardarena`` app."""
    app.command("query")(query_cmd)
    app.command("rank")(rank_cmd)
    app.command("verify")(verify_cmd)
    app.command("coverage")(coverage_cmd)
    app.command("fuzz")(fuzz_cmd)

"""``cardarena query|rank|verify|coverage|fuzz``: the analysis commands.

:func:`register` adds them to the main typer app (``dashboards/app.py``).  Heavy imports (DuckDB,
Polars, openskill, numpy) happen inside the commands, so ``cardarena games`` stays fast.  Bad input
(no tournament directory, unreadable part, SQL error, unknown game) is one line on stderr and exit
status 2; ``verify`` exits 1 when it finds a violation, ``fuzz`` when it finds a failure.
"""
from __future__ import annotations

import json
import math
import os
import sys
from contextlib import nullcontext
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from bots.failure import fail, one_line
from tournaments.analysis.tables import plain_console, styled

out = plain_console()
"""Reads no markup: every string it prints may hold a log's or a bot's text (tables.py)."""
PROG = "cardarena"

MAX_BOOTSTRAP = 100_000
"""``rank --bootstrap`` at most (200 gives intervals to two decimals; memory grows with it)."""
MAX_SEED = 2**63 - 1
MAX_WORKERS = 256
MAX_COUNT = 1_000_000_000
"""``--limit``, ``--show``: rows or lines at most (0: all)."""
MAX_MINUTES = 7 * 24 * 60.0
"""``fuzz --minutes`` at most: a week per game."""


def file_path(path: Path, flag: str, must_exist: bool) -> Path:
    """``path`` if it names a regular file (or, unless ``must_exist``, nothing yet): a FIFO, a device,
    a socket or a directory is refused with one line instead of blocking or failing later."""
    import os
    import stat

    from tournaments.spec import usable_path

    text = str(path)
    if not usable_path(text):
        fail(PROG, f"{flag}: not a usable path (at most 4096 characters and 255 per name, no NUL)")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if must_exist:
            fail(PROG, f"{flag}: {text!r} not found")
        return path
    except OSError as e:
        fail(PROG, f"{flag}: {text!r} cannot be used: {e.strerror or e}")
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else \
            "a socket" if stat.S_ISSOCK(st.st_mode) else "a device"
        fail(PROG, f"{flag}: {text!r} is {kind}, not a regular file")
    return path


def _os_reason(e: OSError) -> str:
    return (e.strerror or str(e)).lower()


def check_out_file(path: Path, flag: str = "--out") -> None:
    """``path`` can be written as a file: its folder exists (it is not created silently) and it is not
    a folder; otherwise one line, exit 2."""
    parent = path.parent
    if path.is_dir():
        fail(PROG, f"{flag} {path} is a folder; name a file in it, e.g. {path / 'result.csv'}")
    if not parent.exists():
        fail(PROG, f"{flag} {path}: no such folder {parent} (create it first)")
    if not parent.is_dir():
        fail(PROG, f"{flag} {path}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        fail(PROG, f"{flag} {path}: the folder {parent} is not writable")


def check_out_dir(path: Path, flag: str = "--out") -> None:
    """``path`` is a folder, or can be made one (it is created); otherwise one line, exit 2."""
    if path.exists() and not path.is_dir():
        fail(PROG, f"{flag} {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        fail(PROG, f"{flag} {path}: cannot create the folder ({_os_reason(e)})")
    if not os.access(path, os.W_OK | os.X_OK):
        fail(PROG, f"{flag} {path}: the folder is not writable")


def _open(root: Path, tables: tuple[str, ...] | None = None, games: tuple[str, ...] | None = None) -> Any:
    from tournaments.analysis.views import LogError, open_log
    from tournaments.spec import usable_path
    if not usable_path(root):
        fail(PROG,
             f"{str(root)[:80]!r}: not a usable path (at most 4096 characters and 255 per name, no NUL)")
    try:
        return open_log(root, tables=tables, games=games) if tables else open_log(root, games=games)
    except LogError as e:
        fail(PROG, str(e))


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
    limit: Annotated[int, typer.Option(min=0, max=MAX_COUNT, help="rows shown by --format table (0: all)")
                     ] = 100,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output (--format json)")
                       ] = False,
    game: Annotated[list[str] | None, typer.Option(
        "--game", "-g", help="only this game's logs (repeatable): the views hold its rows and only its "
                             "files are checked and read")] = None,
) -> None:
    """Run SQL over a tournament's logs (views: moves, matches, events; `game` is a column; and the
    engine's card tables: card_tables, card_ranks)."""
    import duckdb

    if as_json:
        if fmt not in (Format.table, Format.json):
            fail(PROG, f"--json and --format {fmt.value} ask for two formats: give one")
        fmt = Format.json

    from tournaments.analysis.verify import register_card_tables
    from tournaments.analysis.views import LogError
    log = _open(directory, games=tuple(dict.fromkeys(game)) if game else None)
    if fmt is Format.parquet and output is None:
        fail(PROG, "--format parquet needs --out FILE.parquet")
    if output is not None:
        from tournaments.spec import usable_path
        if usable_path(output):
            check_out_file(output)
        file_path(output, "--out", must_exist=False)   # (a FIFO or a device)
    try:
        con = log.connect()
        register_card_tables(con)
        rel = con.sql(sql)
        if rel is None:
            fail(PROG, "the SQL returned no rows to show (write a SELECT)")
        table = rel.arrow()
        if hasattr(table, "read_all"):
            table = table.read_all()
    except duckdb.Error as e:
        fail(PROG, f"SQL error: {sql_message(e)}")
    except LogError as e:
        fail(PROG, str(e))
    try:
        _write(table, fmt, output, limit)
    except OSError as e:  # a full disk, a folder that vanished
        fail(PROG, f"{_os_reason(e)} writing {e.filename or output}")


def sql_message(e: BaseException) -> str:
    """DuckDB's message as one line: its first line (the caret lines and candidate lists dropped),
    cut to 300 characters."""
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return first if len(first) <= 300 else first[:297] + "..."


def _write(table: Any, fmt: Format, output: Path | None, limit: int) -> None:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
    if fmt is Format.parquet:
        assert output is not None
        pq.write_table(table, output, compression="zstd")
        print(f"{table.num_rows} rows written to {output}", file=sys.stderr)
        return
    if fmt is Format.csv:
        table = _flat(table)
        if output:
            pacsv.write_csv(table, output)
        else:
            buf = _csv_text(table)
            sys.stdout.write(_terminal_safe(buf) if sys.stdout.isatty() else buf)
        return
    rows = table.to_pylist()
    if fmt is Format.json:
        text = json.dumps(rows, default=str)
        if output:
            output.write_text(text + "\n")
        else:
            print(text)
        return
    import pyarrow as pa

    from tournaments.analysis.tables import fit_table  # cells fold, never cut; ids never wrap
    whole = [f.name for f in table.schema   # ids and numbers (a 19-digit seed) never break across lines
             if f.name.endswith("_id") or f.name in ("tournament", "id")
             or pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_decimal(f.type)]
    t = fit_table(*table.column_names, ids=whole)
    shown = rows if limit <= 0 else rows[:limit]
    cells = [[_cell(v) for v in r.values()] for r in shown]
    for r in cells:
        t.add_row(*r)
    for i, (name, col) in enumerate(zip(table.column_names, t.columns, strict=True)):
        if name in whole:   # a column that never wraps is never narrowed below its cells
            col.min_width = max((len(r[i]) for r in cells), default=0)
    need = sum(c.min_width or 4 for c in t.columns) + 3 * len(t.columns) + 1
    with open(output, "w") if output else nullcontext(None) as f:
        console = plain_console(f) if f is not None else out
        if need > console.width:   # rather wider than the terminal than a number cut or a column gone
            console = plain_console(console.file)
            console.width = need   # (after the fact: rich's constructor lets $COLUMNS override width=)
        console.print(t)
        if len(shown) < len(rows):
            console.print(f"({len(rows)} rows; {len(rows) - len(shown)} not shown: --limit 0 shows all)")


def _terminal_safe(text: str) -> str:
    """CSV text for a terminal: each line's control characters and escapes shown escaped (a log's
    text cannot repaint the terminal); redirected to a file or a pipe, the CSV is written as it is."""
    return "\n".join(one_line(line, limit=None) for line in text.split("\n"))


def _flat(table: Any) -> Any:
    """``table`` with every list, struct or map column as JSON text (CSV cells are flat): a ``bots``
    cell reads ``["random", "greedy"]``, a ``faults`` cell ``[{"seat": 1, ...}]``."""
    import pyarrow as pa
    for i, f in enumerate(table.schema):
        if pa.types.is_nested(f.type):
            text = [None if v is None else json.dumps(v, default=str) for v in table.column(i).to_pylist()]
            table = table.set_column(i, f.name, pa.array(text, pa.string()))
    return table


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
    bootstrap: Annotated[int, typer.Option(min=0, max=MAX_BOOTSTRAP,
                                           help="bootstrap replicates of the score's and "
                                           "head-to-head 95% intervals")] = 200,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="bootstrap seed")] = 0,
    wide: Annotated[bool, typer.Option("--wide", help="add openskill mu ± sigma and ordinal (wider than "
                                       "80 columns)")] = False,
) -> None:
    """Leaderboards per game and overall: the headline score with its bootstrap 95% interval,
    openskill, placements, scores, the Plackett-Luce strength (--wide: its 95% interval, a sandwich
    over duplicate boards at the fit, no bootstrap), and head-to-head with bootstrap intervals (pairs
    whose order is not significant marked ~)."""
    from tournaments.analysis.ratings import rank
    from tournaments.analysis.views import LogError
    log = _open(directory, ("matches",))
    if game is not None and game not in log.games:
        fail(PROG,
             f"no matches of game {game!r} in {directory}; games there: {', '.join(log.games) or 'none'}")
    if bootstrap < 0:
        fail(PROG, "--bootstrap must be 0 or more")
    try:
        boards = rank(log, game=game, bootstrap=bootstrap, seed=seed)
    except LogError as e:
        fail(PROG, str(e))
    if as_json:
        print(json.dumps([b.to_json() for b in boards]))
        return
    if not boards:
        out.print(f"no ranked matches in {directory} (a match a person played, `play --human`, is never "
                  "ranked)" if log.games else f"no matches in {directory}")
    if boards and boards[-1].specialised:
        print_champions(boards[-1].champions, wide)
    for b in boards:
        _print_board(b, wide)


def print_champions(rows: list[dict[str, Any]], wide: bool = False) -> None:
    """The per-game champions view (:func:`tournaments.analysis.leaderboard.champions`): the headline
    when entrants specialise, printed before the boards."""
    from tournaments.analysis.tables import console, fit_table, plain
    con = console(wide, out)
    t = fit_table("game", "first", "score", "95% CI", "entrants", "matches")
    for c in rows:
        ci = "-" if c["lo"] is None else f"{c['lo']:.2f}-{c['hi']:.2f}"
        first = c["leaders"][0] if len(c["leaders"]) == 1 else \
            " / ".join(c["leaders"]) + " (shared: intervals overlap)"
        t.add_row(c["game"], first, f"{c['score']:.3f}", ci, str(c["entrants"]), str(c["matches"]))
    con.print(styled(("per-game champions", "bold"),
                     ": entrants did not all play the same games, so each game's board is the result"))
    con.print(t)
    con.print(plain("  first: every entrant whose rank interval holds first place; score and 95% CI: "
                    "the game's best score"))
    con.print()


def _print_board(b: Any, wide: bool = False) -> None:
    """One leaderboard in the headline's order: at 80 columns the rank, entrant, matches, the headline
    score with its interval, mean place, a game's mean points and the Plackett-Luce strength; ``wide``
    adds the strength's interval and openskill.  Head-to-head columns are the ranks."""
    from tournaments.analysis.leaderboard import METRIC, RANK_LEGEND, rank_labels
    from tournaments.analysis.tables import console, fit_table, plain
    con = console(wide, out)
    per_game = b.scope != "overall"
    low = b.lower_score_wins
    points = ("points",) if per_game else ()
    extra = ("strength 95% CI", "openskill mu ± sigma", "ordinal") if wide else ()
    t = fit_table("#", "entrant", "n", "score", "95% CI", "place", *points, "strength", *extra)
    ranks = rank_labels([(e.score_lo, e.score_hi) for e in b.entrants])
    for i, e in enumerate(b.entrants):
        ci = "-" if e.score_lo is None else f"{e.score_lo:.2f}-{e.score_hi:.2f}"
        pts = (("-" if e.mean_score is None else f"{e.mean_score:.2f}"),) if per_game else ()
        more = (f"[{e.lo:+.2f}, {e.hi:+.2f}]", f"{e.mu:.2f} ± {e.sigma:.2f}", f"{e.ordinal:.2f}") \
            if wide else ()
        t.add_row(ranks[i],
                  e.name, str(e.matches), f"{e.score:.3f}", ci, f"{e.mean_place:.2f}", *pts,
                  f"{e.strength:+.2f}", *more)
    from tournaments.analysis.leaderboard import no_overall, no_overall_text
    if b.scope == "overall" and no_overall(b.games, len(b.entrants), len(b.apart)):
        con.print(styled((b.scope, "bold"), f": {b.matches} matches"))
        con.print(plain("  " + no_overall_text(b.note)))
        con.print()
        return
    con.print(styled((b.scope, "bold"), f": {b.matches} matches"))
    con.print(t)
    if b.note:
        con.print(plain("  " + b.note))
    con.print("  " + METRIC, markup=False)
    sheet = "" if low is None else " (lower is better)" if low else " (higher is better)"
    con.print("  n: matches; place: mean place" + (f"; points: mean of the game's own score sheet{sheet}"
                                                     if per_game else "")
              + "; strength: Plackett-Luce log-strength" + (
                  " (95% CI: a sandwich over duplicate boards at the fit)" if wide else
                  " (--wide: its interval and openskill)"), markup=False)
    con.print(f"  {RANK_LEGEND}; in head-to-head, ~: the order of the pair is not significant",
              markup=False)
    if b.h2h:
        names = [e.name for e in b.entrants]
        cell = {(h.a, h.b): h for h in b.h2h}
        h = fit_table("head-to-head", *[str(i) for i in range(1, len(names) + 1)])
        for k, a in enumerate(names, 1):
            row = []
            for c in names:
                if a == c:
                    row.append("")
                    continue
                x = cell.get((a, c))
                if x is not None:
                    row.append(f"{x.score:.2f}" + ("" if x.significant else "~"))
                elif (y := cell.get((c, a))) is not None:
                    row.append(f"{1 - y.score:.2f}" + ("" if y.significant else "~"))
                else:
                    row.append("-")
            h.add_row(f"{k} {a}", *row)
        con.print(styled((b.scope, "bold"), ": share of matches the row placed above the column (ties half; "
                         "columns numbered as the rows; ~ = not significant)"))
        con.print(h)
    con.print()


# ------------------------------------------------------------------------------------------ verify
def verify_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory")],
    match: Annotated[str | None, typer.Option("--match", help="replay only this match's logged moves through "
                                              "the engine (no bot runs: `bots replay` runs them)")] = None,
    workers: Annotated[int | None, typer.Option(min=1, max=MAX_WORKERS,
                                                help="replay processes (default: the CPUs)")] = None,
    deep: Annotated[bool, typer.Option(help="check the conformance invariants after every action")] = False,
    sql: Annotated[bool, typer.Option("--sql/--no-sql", help="run the invariant SQL queries")] = True,
    replay: Annotated[bool, typer.Option("--replay/--no-replay", help="replay the matches")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    shown: Annotated[int, typer.Option("--show", min=0, max=MAX_COUNT, help="violations printed (0: all)")
                     ] = 50,
    sample: Annotated[float | None, typer.Option("--sample", help=(
        "replay a random fraction F of the matches (0 < F <= 1); the report gives the seed and the "
        "confidence"))] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="the --sample draw's seed (default: "
                                             "a fresh one, printed)")] = None,
    address: Annotated[str | None, typer.Option("--address", help="replay on this Ray cluster (every node "
                                                "must read DIRECTORY) instead of local processes")] = None,
) -> None:
    """Replay every match (legal actions, final scores and ranking, rule events) and run the per-game
    invariant SQL; print each violation with a command that replays it; exit 1 if there is any."""
    from tournaments.analysis.verify import Uncertified, verify
    from tournaments.analysis.views import LogError, TournamentLog
    from tournaments.spec import usable_path
    if sample is not None and not 0.0 < sample <= 1.0:
        fail(PROG, f"--sample {sample:g}: expected a fraction of the matches, 0 < F <= 1")
    if not usable_path(directory):
        fail(PROG,
             f"{str(directory)[:80]!r}: not a usable path (at most 4096 characters and 255 per name, no NUL)")
    try:  # a clear message for a directory that is not a tournament
        TournamentLog(directory, check=False)
        report = verify(directory, workers=workers, deep=deep or match is not None, only=match,
                        replay=replay, sql=sql, sample=None if match is not None else sample, seed=seed,
                        address=None if match is not None else address)
    except Uncertified as e:  # one line per part that does not read whole; nothing else is checked
        if as_json:
            print(json.dumps({"ok": False, "certified": False, "unreadable": e.problems}))
        hint = (f"; `cardarena tournament repair {directory}` quarantines the damaged batches and "
                "`cardarena tournament run SPEC --resume` replays their matches")
        *first, last = e.problems   # (never empty)
        for p in first:
            print(f"{PROG}: not certified: {one_line(p)}", file=sys.stderr)
        fail(PROG, f"not certified: {last}{hint}")
    except LogError as e:
        fail(PROG, str(e))
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        vs = report.violations if shown <= 0 else report.violations[:shown]
        for v in vs:
            print(one_line(v.line(), limit=None))
        if len(vs) < len(report.violations):
            print(f"... {len(report.violations) - len(vs)} more (--show 0 prints all)")
        rate = report.moves / report.replay_seconds if report.replay_seconds else 0.0
        print(f"replayed {report.matches} matches, {report.moves} moves in {report.replay_seconds:.1f} s "
              f"({rate:,.0f} moves/s); {len(report.queries)} invariant queries in "
              f"{report.sql_seconds:.1f} s; {len(report.violations)} violation(s)")
        if match is not None:
            print(f"this checks the engine: the logged moves of match {match} replayed through the rules, "
                  f"no bot run; to play the match again with its bots (and a new version), "
                  f"`cardarena bots replay {directory} {match} [--bot NEW.py]`")
        if report.sample is not None:
            print(f"sample: {report.sample.fraction:g} of the matches, seed {report.sample.seed} "
                  f"(again: --sample {report.sample.fraction:g} --seed {report.sample.seed}); "
                  f"{report.confidence}")
        if report.resubmitted:
            print(f"{report.resubmitted} replay task(s) run again after their worker process died")
    if report.violations:
        sys.exit(1)


# ------------------------------------------------------------------------------------------ coverage
def coverage_cmd(
    directory: Annotated[Path, typer.Argument(help="tournament directory")],
    game: Annotated[str | None, typer.Option(help="only this game")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Every rule event of each game's card in docs/rules.md (then those the game declares beyond it)
    with how often it fired; never fired = flagged."""
    from rich.text import Text

    from tournaments.analysis.coverage import coverage
    from tournaments.analysis.tables import fit_table, plain
    from tournaments.analysis.views import LogError
    log = _open(directory, ("matches", "events"))
    try:
        covs = coverage(log, game)
    except LogError as e:
        fail(PROG, str(e))
    if game is not None and not covs:
        fail(PROG,
             f"no matches of game {game!r} in {directory}; games there: {', '.join(log.games) or 'none'}")
    if as_json:
        print(json.dumps([{"game": c.game, "matches": c.matches, "source": c.source, "note": c.note,
                           "events": c.events, "missing": c.missing, "extra": c.extra} for c in covs]))
        return
    for c in covs:
        fired = len(c.events) - len(c.missing)
        out.print(styled((c.game, "bold"), f": {c.matches} matches, {fired}/{len(c.events)} listed events "
                         f"fired (list: {c.source})"))
        t = fit_table("event", "fired", "matches", "")
        for ev in c.events:
            flag = Text("NEVER FIRED", style="bold red") if ev["missing"] else Text()
            if not ev["on_card"] and c.source != "declared only":
                flag.append((" " if flag else "") + "declared")
            t.add_row(_short(ev["event"], c.game), str(ev["fired"]), str(ev["matches"]), flag)
        for ev in c.extra:
            t.add_row(_short(ev["event"], c.game), str(ev["fired"]), str(ev["matches"]), "unlisted")
        out.print(t)
        if c.extra or (any(not ev["on_card"] for ev in c.events) and c.source != "declared only"):
            out.print("  declared: the game declares it, its docs/rules.md card does not list it; "
                      "unlisted: fired, on neither list", markup=False)
        if c.note:
            out.print(plain(f"  {c.game}: {c.note}"))


def _short(event: str, game: str) -> str:
    """``hartenjagen.moon_shot`` -> ``moon_shot`` (the table's title names the game)."""
    return event[len(game) + 1:] if event.startswith(game + ".") else event


# ------------------------------------------------------------------------------------------ fuzz
def fuzz_cmd(
    game: Annotated[str, typer.Argument(help="game id (see `cardarena games`), or `all`")],
    minutes: Annotated[float, typer.Option(help="time budget per game, in minutes (more than 0, at most "
                                                f"{MAX_MINUTES:g})")] = 1.0,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="fuzzer seed")] = 0,
    out_dir: Annotated[Path, typer.Option("--out", help="where failing cases are saved")] = Path("data/fuzz"),
    replay_case: Annotated[Path | None, typer.Option("--replay", help="replay a saved case (JSON)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Coverage-guided rule fuzzing: random and chaos play steered to the rarest rule events, the
    conformance invariants after every action, failures shrunk to a minimal saved case."""
    from engine import GAMES
    from tournaments.analysis import fuzz
    if not math.isfinite(minutes) or not 0 < minutes <= MAX_MINUTES:
        fail(PROG, f"--minutes: {minutes:g} is out of range: more than 0 and at most {MAX_MINUTES:g} "
             "(a finite number)")
    if replay_case is not None:
        file_path(replay_case, "--replay", must_exist=True)
        try:
            case = fuzz.load_case(replay_case)
        except (OSError, ValueError, TypeError) as e:  # TypeError: a "case" with other fields than Case's
            fail(PROG,
                 f"cannot read case {replay_case}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        failure = fuzz.run_case(case)
        if failure is None:
            print(f"case {replay_case}: no failure now (fixed?)")
            return
        print(f"case {replay_case}: {failure.kind}: {failure.message}")
        sys.exit(1)
    games = list(GAMES) if game == "all" else [game]
    for g in games:
        if g not in GAMES:
            fail(PROG, f"unknown game {g!r}; known games: {', '.join(GAMES)} (or all)")
    check_out_dir(out_dir)  # before the fuzzing: a failing case must have somewhere to go
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

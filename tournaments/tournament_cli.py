"""``cardarena tournament ...``: run a tournament on Ray, show its leaderboard and status.

Mounted by ``dashboards/app.py`` (``app.add_typer(tournament_app, name="tournament")``).  Bad input
(a malformed spec, an unknown game or bot, too few entrants, an unreachable address, an output
directory holding another tournament) exits 2 with one line naming the field; never a traceback.
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bots.failure import HELP_SETTINGS, fail, one_line
from tournaments.analysis.tables import PlainTable as Table
from tournaments.analysis.tables import plain_console, styled

if TYPE_CHECKING:  # the heavy modules (pyarrow, the engine) load when a command runs
    from tournaments.runners import Summary
    from tournaments.spec import Spec
    from tournaments.store import Files

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  context_settings=HELP_SETTINGS,
                  help="Duplicate round-robin tournaments over every game, on Ray; logs in Parquet.")
out = plain_console()
"""Reads no markup: names, ids and problems may hold a log's or a bot's text (tables.py)."""
PROG = "cardarena tournament"


def _build_spec(spec_path: Path | None, overrides: dict[str, Any]) -> Spec:
    from tournaments.spec import SpecError, load_spec, parse_spec

    if spec_path is not None:
        return load_spec(spec_path, overrides)
    if overrides.get("bots") is None:
        raise SpecError("bots: give a SPEC file, or at least --bots "
                        "(e.g. --bots random,greedy,ismcts,r2=random)")
    raw = {k: v for k, v in overrides.items() if v is not None}
    raw.setdefault("name", "cli")
    return parse_spec(raw)


def _bots_flag(text: str | None) -> list[Any] | None:
    """``random,greedy,r2=random``: ``LABEL=BOT`` enters a bot under another label."""
    if text is None:
        return None
    items: list[Any] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        label, sep, bot = part.partition("=")
        items.append({"name": label.strip(), "bot": bot.strip()} if sep else part)
    return items


@app.command("run")
def run_cmd(
    spec: Annotated[Path | None, typer.Argument(help="tournament spec (TOML); see examples/demo.toml")
                    ] = None,
    address: Annotated[str | None, typer.Option(help="Ray cluster address (default: embedded local Ray)")
                       ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="continue the tournament in the output directory")
                      ] = False,
    tournament_id: Annotated[str | None, typer.Option("--tournament-id", help="a new tournament id beside "
                                                      "those already in the output directory")] = None,
    output: Annotated[str | None, typer.Option("--out", help="output directory (default: data/<name>)")
                      ] = None,
    games: Annotated[str | None, typer.Option(help="comma-separated game ids, or 'all'")] = None,
    bots: Annotated[str | None, typer.Option(help="comma-separated bots; LABEL=BOT enters a bot again")
                    ] = None,
    matches: Annotated[int | None, typer.Option("--matches", help="matches per seating (boards)")] = None,
    seed: Annotated[int | None, typer.Option(help="tournament seed")] = None,
    max_deals: Annotated[int | None, typer.Option("--max-deals", help="stop each match after this many deals")
                         ] = None,
    inline: Annotated[bool, typer.Option("--inline", help="run in this process without Ray (debugging)")
                      ] = False,
    use_ray: Annotated[bool, typer.Option("--ray", help="run on embedded Ray even when the run fits this "
                                          "machine's CPUs (default: a local pool of processes)")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", help="show the progress bar (a plain "
                                           "line every --progress-every seconds when stdout is not a "
                                           "terminal)")] = True,
    progress_every: Annotated[float, typer.Option("--progress-every", min=0.0, help="seconds between plain "
                                                  "progress lines when stdout is not a terminal")] = 5.0,
    leaderboard: Annotated[bool, typer.Option("--leaderboard/--no-leaderboard", help="print it at the end "
                                              "(--no-leaderboard: not computed; --json then has no "
                                              "leaderboard)")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable summary")] = False,
    compact_after: Annotated[bool, typer.Option("--compact", help="compact the log when the run has "
                                                "played every match (see `tournament compact`)")] = False,
    allow_engine_change: Annotated[bool, typer.Option(
        "--allow-engine-change", help="go on with a tournament whose matches so far were played by other "
        "rules code (another cardarena version); the manifest records the change")] = False,
) -> None:
    """Run (or resume) a tournament: every match once, logged to Parquet, with a progress bar.

    Ray's own messages go to OUT/_logs/ray-driver.log, never to stdout (--json output always parses);
    a lost node is one line of ours.  Not on a terminal, progress is a plain line every few seconds.
    """
    from tournaments.runners import TournamentError, run_tournament
    from tournaments.spec import SpecError, check_tournament_id

    if tournament_id is not None:
        try:
            check_tournament_id(tournament_id, "--tournament-id")
        except SpecError as e:
            fail(PROG, str(e))
    overrides: dict[str, Any] = {
        "output": output, "bots": _bots_flag(bots), "matches_per_seating": matches, "seed": seed,
        "max_deals": max_deals,
        "games": None if games is None else ("all" if games == "all" else
                                             [g.strip() for g in games.split(",") if g.strip()])}
    try:
        sp = _build_spec(spec, overrides)
        if not as_json and progress:
            where = (" in this process" if inline else f" on {address or sp.address}"
                     if (address or sp.address) else " (embedded Ray)" if use_ray else " (local processes)")
            out.print(styled((sp.name, "bold"), f": {len(sp.games)} games, {len(sp.bots)} entrants, "
                             f"{sp.matches_per_seating} board(s) per seating -> {_shown(sp.output)}{where}"),
                      soft_wrap=True)
        summary = run_tournament(sp, tournament_id=tournament_id, resume=resume, address=address,
                                 executor="inline" if inline else "ray" if use_ray else "auto",
                                 progress=progress and not as_json,
                                 progress_every=progress_every, allow_engine_change=allow_engine_change)
    except SpecError as e:
        fail(PROG, _flag_named(str(e), overrides))
    except TournamentError as e:
        fail(PROG, str(e))
    except OSError as e:   # a full disk, a read-only or vanished output directory
        fail(PROG, _os_line(e))
    for part, problems in summary.quarantined:
        print(f"{PROG}: quarantined {part}: {one_line(problems[0], None)}; its matches were played again",
              file=sys.stderr)
    compaction: dict[str, Any] | None = None
    if compact_after and not summary.stopped:
        compaction = _compact_or_fail(Path(summary.root), summary.tournament, None, as_json)
    # The board (a read of every batch and a bootstrap) only when it is printed: not with
    # --no-leaderboard, whose --json summary then has no "leaderboard".
    board = (_board_or_fail(*_readable(Path(summary.root)), summary.tournament) if leaderboard else None)
    if as_json:
        print(json.dumps({**_summary_json(summary), **({"leaderboard": board} if leaderboard else {})}
                         | ({"compaction": compaction} if compaction else {})))
    else:
        again = f"cardarena tournament run {spec} --resume" if spec else "the same command with --resume"
        _print_summary(summary, again)
        if board is not None:
            print_leaderboard(board, summary.tournament)
    if summary.stopped:
        raise SystemExit(130)


def _shown(output: Path | str) -> str:
    """The log's place as the start line shows it: a directory as given, an object store's URI whole
    (``s3://bucket/prefix``) without its query (endpoint settings)."""
    return output.split("?", 1)[0] if isinstance(output, str) else str(output)


def _os_line(e: OSError) -> str:
    """``no space left on device writing OUT/...``: one line for an error of the filesystem."""
    what = (e.strerror or str(e)).lower()
    return f"{what} writing {e.filename}" if e.filename else what


@app.command("plan")
def plan_cmd(
    spec: Annotated[Path, typer.Argument(help="tournament spec (TOML), as for run")],
    cpus: Annotated[int | None, typer.Option(min=1, help="CPUs to estimate for (default: run.num_cpus, "
                                             "else this machine's)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """A dry run: the schedule's size per game, each entrant's meetings, an estimated time."""
    from tournaments.plan import plan_report, print_plan
    from tournaments.runners import resolve_bots
    from tournaments.spec import SpecError

    try:
        sp = _build_spec(spec, {})
        report = plan_report(sp, resolve_bots(sp)[1], cpus)
    except SpecError as e:
        fail(PROG, str(e))
    if as_json:
        print(json.dumps(report))
    else:
        print_plan(report, out)


FLAGS = {"matches_per_seating": "--matches", "max_deals": "--max-deals", "seed": "--seed", "games": "--games",
         "bots": "--bots", "output": "--out"}


def _flag_named(msg: str, overrides: dict[str, Any]) -> str:
    """A spec error about a field given by a flag names the flag too: ``--matches (matches_per_seating)``."""
    for field, flag in FLAGS.items():
        rest = msg[len(field):]
        if overrides.get(field) is not None and msg.startswith(field) and rest[:1] in (":", "[", " ", "."):
            return f"{flag}: {field}{rest}"
    return msg


def _summary_json(s: Summary) -> dict[str, Any]:
    return {"tournament": s.tournament, "output": str(s.root), "total": s.total, "done": s.done,
            "done_before": s.done_before, "done_now": s.done_now, "moves": s.moves, "faults": s.faults,
            "errors": s.errors, "seconds": round(s.seconds, 3), "stopped": s.stopped, "complete": s.complete,
            "resubmitted": s.resubmitted,
            "lost_nodes": [{"node_id": n.node_id, "address": n.address, "batches_rerun": n.rerun}
                           for n in s.lost_nodes.values()],
            "lost_workers": s.lost_workers, "ray_log": None if s.ray_log is None else str(s.ray_log),
            "executor": s.executor}


def summary_line(s: Summary) -> str:
    """The run's last line: whole, however wide (it is never wrapped or cut to the terminal)."""
    rate = s.done_now / s.seconds if s.seconds else 0.0
    state = "complete" if s.complete else ("stopped" if s.stopped else "incomplete")
    lost = f", nodes lost {len(s.lost_nodes)}" if s.lost_nodes else ""
    return (f"{s.tournament}: {s.done} of {s.total} matches ({state}); this run {s.done_now} matches, "
            f"{s.moves} moves in {s.seconds:.1f} s ({rate:.1f} matches/s), faults {s.faults}"
            + (f", engine errors {s.errors}" if s.errors else "")
            + (f", batches re-run {s.resubmitted}" if s.resubmitted else "") + lost + f"; logs in {s.root}")


def _print_summary(s: Summary, again: str) -> None:
    print(summary_line(s), flush=True)   # plain print: rich would wrap it at 80 columns off a terminal
    if s.stopped:
        print(f"resume with: {again}", flush=True)


# ------------------------------------------------------------------------------------------ leaderboard
def _matches_rows(root: Path, tournament: str, files: Files | None = None) -> list[dict[str, Any]]:
    """The matches of ``tournament``'s whole batches; :class:`~tournaments.log.PartError` (one line
    naming the part) if any batch is damaged or incomplete: a leaderboard without some of its matches
    would mislead.  A part holding another tournament's rows is reported (a warning line) and skipped."""
    from tournaments.log import PartError, check_batch, damage_line
    from tournaments.paths import committed_parts, part_game

    rows: list[dict[str, Any]] = []
    cols = ["group_id", "bots", "bot_refs", "ranking", "teams", "faults"]
    bad = []
    where: dict[str, Path] = {}
    for p in committed_parts(root, tournament, files=files):
        c = check_batch(root, part_game(p), p.name, tournament, full=False, files=files)
        if c.foreign and len(c.problems) == 1:
            print(f"{PROG}: warning: {one_line(c.problems[0], None)}", file=sys.stderr)
            continue
        twice = [x for x in c.match_ids if x in where]
        if twice and not c.problems:   # a batch copied under another name would count twice
            line = f"{p}: holds {len(twice)} match(es) already in {where[twice[0]]} (e.g. {twice[0]}): " \
                   "not counted twice"
            c.problems.append(files.shown(line) if files is not None else line)
        if c.problems or c.matches is None:
            bad.append(c)
            continue
        where.update((x, p) for x in c.match_ids)
        for r in c.matches.select(cols).to_pylist():
            r["game"] = c.game
            rows.append(r)
    if bad:
        raise PartError(damage_line(bad, files.shown(str(root)) if files is not None else root))
    return rows


def _readable(output: Path) -> tuple[Path, Files]:
    """(the log's root, its files): a local directory, or an object store's URI read in place (the
    store's path and a read-only view of it; fails in one line)."""
    from tournaments.store import StoreError, log_files, restore_uri

    try:
        files = log_files(restore_uri(output))
    except StoreError as e:
        fail(PROG, str(e))
    return files.root, files


def _board_or_fail(root: Path, files: Files | None, tournament: str) -> list[dict[str, Any]]:
    from tournaments.log import PartError
    from tournaments.store import StoreError

    try:
        return leaderboard_rows(root, tournament, files)
    except (PartError, StoreError) as e:
        fail(PROG, str(e))


def leaderboard_rows(root: Path, tournament: str, files: Files | None = None) -> list[dict[str, Any]]:
    """Per entrant, best first: the headline ``score`` with its bootstrap 95% interval ``lo``..``hi``
    and ``tied`` (:mod:`tournaments.analysis.leaderboard`, the numbers ``rank`` and the dashboard show),
    its score per game (``games``), and over all its matches: matches, wins, mean place, faults.

    ``ranked``: on the overall board, which compares entrants over the games each of them played
    (``overall_games``); an entrant that did not play all of those is listed after the ranked ones,
    ``ranked`` false and ``score`` null, with its per-game scores.  ``lower_score_wins`` per game: the
    direction of the game's own score sheet.
    """
    from tournaments.analysis.leaderboard import OVERALL, Result, champions, headlines, ranked_match

    matches = [r for r in _matches_rows(root, tournament, files) if ranked_match(r["bot_refs"])]  # no human
    boards = headlines([Result(r["game"], r["group_id"], r["bots"], r["teams"], r["ranking"])
                        for r in matches])
    if not boards:
        return []
    main = boards.get(OVERALL) or next(iter(boards.values()))
    wins: dict[str, int] = defaultdict(int)
    faults: dict[str, int] = defaultdict(int)
    places: dict[str, list[int]] = defaultdict(list)
    for r in matches:
        faulted = {f["seat"] for f in r["faults"] if f["seat"] is not None}
        for seat, label in enumerate(r["bots"]):
            wins[label] += r["ranking"][seat] == 1
            faults[label] += seat in faulted
            places[label].append(r["ranking"][seat])
    games = {g: b for g, b in boards.items() if g != OVERALL}
    directions = {g: b.lower_score_wins for g, b in sorted(games.items())}
    first_in: dict[str, list[str]] = defaultdict(list)
    for c in champions(boards):
        for b in c.leaders:
            first_in[b].append(c.game)

    def row(bot: str, ranked: bool) -> dict[str, Any]:
        st = main.by_bot(bot) if ranked else None
        return {"bot": bot, "ranked": ranked, "score": st.score if st else None,
                "lo": st.lo if st else None, "hi": st.hi if st else None, "tied": st.tied if st else False,
                "matches": len(places[bot]), "wins": wins[bot],
                "mean_place": sum(places[bot]) / len(places[bot]), "faults": faults[bot],
                "games": {g: round(b.by_bot(bot).score, 4) for g, b in sorted(games.items())
                          if any(s.bot == bot for s in b.standings)},
                "overall_games": main.games, "lower_score_wins": directions,
                "first_in": sorted(first_in[bot])}
    return [row(s.bot, True) for s in main.standings] + [row(a.bot, False) for a in main.apart]


def print_leaderboard(rows: list[dict[str, Any]], title: str) -> None:
    """The headline board, the entrants it leaves apart, then each entrant's score per game with the
    direction of each game's own score sheet."""
    from tournaments.analysis.leaderboard import METRIC, RANK_LEGEND, rank_labels
    if not rows:
        out.print("no finished matches yet")
        return
    ranked = [r for r in rows if r["ranked"]]
    if len(ranked) < len(rows):   # entrants specialise: each game's first place leads
        champ = Table("game", "first", "score", title="per-game champions (entrants did not all play the "
                      "same games; first: every entrant whose rank interval holds first)")
        for g in rows[0]["lower_score_wins"]:
            leaders = sorted((r for r in rows if g in r["first_in"]), key=lambda r: -r["games"][g])
            if leaders:
                champ.add_row(g, " / ".join(r["bot"] for r in leaders), f"{leaders[0]['games'][g]:.3f}")
        out.print(champ)
    table = Table("#", "bot", "score", "95% CI", "matches", "wins", "mean place", "faults",
                  title=f"leaderboard: {title}")
    ranks = rank_labels([(r["lo"], r["hi"]) for r in ranked])
    for i, r in enumerate(ranked):
        table.add_row(ranks[i], r["bot"], f"{r['score']:.3f}", _ci(r),
                      str(r["matches"]), str(r["wins"]), f"{r['mean_place']:.2f}", str(r["faults"]))
    out.print(table)
    games = rows[0]["overall_games"]
    out.print(f"ranked over {len(games)} game(s), each weighing the same", markup=False, soft_wrap=True)
    for r in rows:
        if not r["ranked"]:
            out.print(styled(f"not ranked overall (did not play all those games): {r['bot']} "
                             f"(entered only: {', '.join(r['games'])})"), soft_wrap=True)
    direction = rows[0]["lower_score_wins"]
    per = Table("game", "sheet", *[r["bot"] for r in rows], title="score per game")
    for g, low in direction.items():
        per.add_row(g, "?" if low is None else "low wins" if low else "high wins",
                    *[f"{r['games'][g]:.3f}" if g in r["games"] else "-" for r in rows])
    out.print(per)
    out.print(METRIC + f"; {RANK_LEGEND}; overall: the mean over games; sheet: "
              "the direction of the game's own score sheet", markup=False)


def _ci(r: dict[str, Any]) -> str:
    return "-" if r["lo"] is None else f"{r['lo']:.3f}-{r['hi']:.3f}"


@app.command("leaderboard")
def leaderboard_cmd(
    output: Annotated[Path, typer.Argument(help="a tournament output directory, e.g. data/demo")],
    tournament: Annotated[str | None, typer.Option(help="tournament id (default: the only one there)")
                          ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """The leaderboard of a tournament (finished or not) from its Parquet logs."""
    from tournaments.spec import SpecError, check_path, check_tournament_id
    try:
        check_path(output, "OUTPUT")
        if tournament is not None:
            check_tournament_id(tournament, "--tournament")
    except SpecError as e:
        fail(PROG, str(e))
    root, files = _readable(output)
    tid = _one_tournament(root, tournament, files)
    rows = _board_or_fail(root, files, tid)
    if as_json:
        print(json.dumps(rows))
    else:
        print_leaderboard(rows, tid)


@app.command("status")
def status_cmd(
    output: Annotated[Path, typer.Argument(help="a tournament output directory, e.g. data/demo")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
    wide: Annotated[bool, typer.Option("--wide", help="list every game and entrant (wider than 80 "
                                       "columns)")] = False,
) -> None:
    """The tournaments in an output directory: matches done of total.  A damaged batch (a part that does
    not read whole, is missing, holds another tournament's rows or a match another batch holds, or lost
    its digest record) is not counted: a warning line on stderr names it (``damaged`` in --json),
    ``cardarena tournament repair`` quarantines it, and the command exits 1 (0: the log is whole)."""
    from tournaments.ledger import read_manifest, tournaments_in
    from tournaments.log import scan_matches
    from tournaments.paths import manifest_path
    from tournaments.spec import SpecError, check_path
    from tournaments.store import StoreError

    try:
        check_path(output, "OUTPUT")
    except SpecError as e:
        fail(PROG, str(e))
    root, files = _readable(output)
    output = Path(files.shown(str(root)))
    try:
        ids = tournaments_in(root, files)
    except StoreError as e:
        fail(PROG, str(e))
    if not ids:
        fail(PROG, f"no tournament in {output} (no _tournaments/*.json manifest)")
    rows = []
    for tid in ids:
        try:
            m = read_manifest(root, tid, files) or {}
        except (OSError, ValueError) as e:
            fail(PROG, f"the manifest {files.shown(str(manifest_path(root, tid)))} cannot be read "
                        f"({str(e).splitlines()[0][:100] if str(e) else type(e).__name__})")
        if not isinstance(m, dict):
            fail(PROG, f"the manifest {files.shown(str(manifest_path(root, tid)))} is corrupt (not a JSON "
                       "object)")
        try:
            done, bad = scan_matches(root, tid, files)
        except StoreError as e:
            fail(PROG, str(e))
        for c in bad:
            print(f"{PROG}: warning: {one_line(c.problems[0], None)}; not counted (`{PROG} repair {output}` "
                  "quarantines it, `--resume` replays its matches)", file=sys.stderr)
        rows.append({"tournament": tid, "done": len(done), "total": m.get("total_matches"),
                     "games": [g["id"] for g in m.get("games", [])], "bots": m.get("bots", {}),
                     "created_at": m.get("created_at"), "updated_at": m.get("updated_at"),
                     "damaged": [p for c in bad for p in c.problems]})
    damaged = any(r["damaged"] for r in rows)
    if as_json:
        print(json.dumps(rows))
        if damaged:
            raise SystemExit(1)
        return
    from tournaments.analysis.tables import console, fit_table
    if wide:
        table = fit_table("tournament", "matches done", "games", "entrants", "updated", ids=("tournament",))
        for r in rows:
            table.add_row(r["tournament"], f"{r['done']} / {r['total']}", ", ".join(r["games"]),
                          ", ".join(r["bots"]), str(r["updated_at"]))
        console(True, out).print(table)
        if damaged:
            raise SystemExit(1)
        return
    table = fit_table("tournament", "done", "games", "entrants", "updated", ids=("tournament",))
    for r in rows:
        table.add_row(r["tournament"], f"{r['done']} / {r['total']}", str(len(r["games"])),
                      str(len(r["bots"])), str(r["updated_at"] or "-")[:16].replace("T", " "))
    out.print(table)
    out.print("(--wide lists the games and entrants)")
    if damaged:   # the counts above leave the damaged batches out: not a clean bill
        raise SystemExit(1)


@app.command("repair")
def repair_cmd(
    output: Annotated[Path, typer.Argument(help="a tournament output directory, e.g. data/demo")],
    tournament: Annotated[str | None, typer.Option(help="tournament id (default: the only one there)")
                          ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Certify every batch of a tournament and move each damaged one (a part that does not read whole or
    changed since its commit, a missing moves/events part, another tournament's rows, a match logged
    twice) to OUT/_quarantine/; `run SPEC --resume` then plays exactly their matches again."""
    from tournaments.ledger import begin_epoch, clean_orphans, read_manifest, repair
    from tournaments.paths import manifest_path, quarantine_dir
    from tournaments.runners import TournamentError
    from tournaments.runners.preparation import _lock

    tid = _one_tournament(output, tournament)
    try:
        held = _lock(output, tid)
    except TournamentError as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, _os_line(e))
    try:   # the same steps as a resume: fence off a killed run's workers, drop orphans, then certify
        epoch = begin_epoch(output, tid)
        orphans = clean_orphans(output, tid, before_epoch=epoch)
        fixed = repair(output, tid)
        try:
            manifest = read_manifest(output, tid) or {}
        except (OSError, ValueError) as e:   # (a JSONDecodeError names no file)
            raise ValueError(f"the manifest {manifest_path(output, tid)} cannot be read "
                             f"({one_line(str(e).splitlines()[0] if str(e) else type(e).__name__, 100)})"
                             ) from None
        if not isinstance(manifest, dict):
            raise ValueError(f"the manifest {manifest_path(output, tid)} is corrupt (not a JSON object)")
        total = manifest.get("total_matches")
    except OSError as e:
        fail(PROG, _os_line(e))
    except ValueError as e:
        fail(PROG, str(e))
    finally:
        held.close()
    if as_json:
        print(json.dumps({"tournament": tid, "done": len(fixed.done), "total": total,
                          "quarantined": [{"part": p, "problems": pr} for p, pr in fixed.quarantined],
                          "replay": sorted(fixed.replay), "removed_orphans": len(orphans)}))
        return
    for part, problems in fixed.quarantined:
        print(f"quarantined {part}: {one_line('; '.join(problems), None)}")
    print(f"{tid}: {len(fixed.done)} of {total} matches in whole batches; "
              f"{len(fixed.quarantined)} batch(es) moved to {quarantine_dir(output)}"
              + (f", {len(orphans)} orphaned file(s) removed" if orphans else "")
              + ("" if len(fixed.done) == total else
                 "; play the rest with: cardarena tournament run SPEC --resume (its own spec)"))


@app.command("compact")
def compact_cmd(
    output: Annotated[Path, typer.Argument(help="a tournament output directory, e.g. data/demo")],
    game: Annotated[str | None, typer.Option(help="compact this game only (default: every game)")] = None,
    tournament: Annotated[str | None, typer.Option(help="tournament id (default: the only one there)")
                          ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Merge a finished (or paused) tournament's batches, per game, into few large files sorted by match
    and ply (row groups of about 128 MB), under the tournament's lock.  Readers see the old files or
    the new ones; `run SPEC --resume` afterwards plays every remaining match once.  On an object store
    (s3://...) under the tournament's lease, committed by one record object (data/README.md)."""
    from tournaments.store import is_uri, restore_uri
    if is_uri(restore_uri(output)):
        root, files = _readable(output)
        tid = _one_tournament(root, tournament, files)
    else:
        tid = _one_tournament(output, tournament)
    done = _compact_or_fail(output, tid, game, as_json)
    if as_json:
        print(json.dumps(done))


def _compact_or_fail(output: Path, tid: str, game: str | None, quiet: bool) -> dict[str, Any]:
    """Compact (one line of ours on failure, exit 2); print a line unless ``quiet``; the JSON record."""
    from tournaments.compact import CompactError, compact
    from tournaments.runners import TournamentError

    try:
        done = compact(output, tid, game)
    except (CompactError, TournamentError, ValueError) as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, _os_line(e))
    record = {"tournament": tid, "epoch": done.epoch, "matches": done.matches,
              "games": {g: {"batches_before": a, "batches_after": b} for g, (a, b) in done.games.items()},
              "removed_orphans": done.removed_orphans}
    if quiet:
        return record
    before = sum(a for a, _ in done.games.values())
    after = sum(b for _, b in done.games.values())
    print(f"{tid}: {done.matches} matches in {len(done.games)} game(s): {before} batch(es) -> {after} "
          f"(epoch {done.epoch})")
    return record


def _one_tournament(output: Path, tournament: str | None, files: Files | None = None) -> str:
    from tournaments.ledger import tournaments_in

    ids = tournaments_in(output, files)
    if files is not None:
        output = Path(files.shown(str(output)))
    if tournament is not None:
        if tournament not in ids:
            fail(PROG, f"no tournament {tournament!r} in {output}; it holds: {', '.join(ids) or 'none'}")
        return tournament
    if len(ids) != 1:
        fail(PROG, f"{output} holds {len(ids)} tournaments ({', '.join(ids) or 'none'}); pick one with "
                    "--tournament")
    return ids[0]

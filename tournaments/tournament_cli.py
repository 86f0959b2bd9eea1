"""``cardarena tournament ...``: run a tournament on Ray, show its leaderboard and status.

Mounted by ``tournaments/cli.py`` (``app.add_typer(tournament_app, name="tournament")``).  Bad input
(a malformed spec, an unknown game or bot, too few entrants, an unreachable address, an output
directory holding another tournament) exits 2 with one line naming the field; never a traceback.
"""
from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:  # the heavy modules (pyarrow, the engine) load when a command runs
    from tournaments.ray_runner import Summary
    from tournaments.spec import Spec

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Duplicate round-robin tournaments over every game, on Ray; logs in Parquet.")
out = Console(highlight=False, soft_wrap=False)
PROG = "cardarena tournament"


def _fail(msg: str) -> SystemExit:
    """One line on stderr, exit status 2.  (SystemExit, not typer.Exit: the main command runs typer
    with ``standalone_mode=False``, where an Exit's code would be returned and lost.)"""
    from bots.cli import one_line
    print(f"{PROG}: {one_line(msg)}", file=sys.stderr)
    return SystemExit(2)


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
    leaderboard: Annotated[bool, typer.Option("--leaderboard/--no-leaderboard", help="print it at the end")
                           ] = True,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable summary")] = False,
) -> None:
    """Run (or resume) a tournament: every match once, logged to Parquet, with a progress bar.

    Ray's own messages go to OUT/_logs/ray-driver.log, never to stdout (--json output always parses);
    a lost node is one line of ours.  Not on a terminal, progress is a plain line every few seconds.
    """
    from tournaments.ray_runner import TournamentError, run_tournament
    from tournaments.spec import SpecError, check_tournament_id

    if tournament_id is not None:
        try:
            check_tournament_id(tournament_id, "--tournament-id")
        except SpecError as e:
            raise _fail(str(e)) from None
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
            out.print(f"[bold]{sp.name}[/bold]: {len(sp.games)} games, {len(sp.bots)} entrants, "
                      f"{sp.matches_per_seating} board(s) per seating -> {sp.output}{where}", soft_wrap=True)
        summary = run_tournament(sp, tournament_id=tournament_id, resume=resume, address=address,
                                 executor="inline" if inline else "ray" if use_ray else "auto",
                                 progress=progress and not as_json,
                                 progress_every=progress_every)
    except SpecError as e:
        raise _fail(_flag_named(str(e), overrides)) from None
    except TournamentError as e:
        raise _fail(str(e)) from None
    except OSError as e:   # a full disk, a read-only or vanished output directory
        raise _fail(_os_line(e)) from None
    for part, problems in summary.quarantined:
        print(f"{PROG}: quarantined {part}: {problems[0]}; its matches were played again", file=sys.stderr)
    board = _board_or_fail(summary.root, summary.tournament)
    if as_json:
        print(json.dumps({**_summary_json(summary), "leaderboard": board}))
    else:
        again = f"cardarena tournament run {spec} --resume" if spec else "the same command with --resume"
        _print_summary(summary, again)
        if leaderboard:
            print_leaderboard(board, summary.tournament)
    if summary.stopped:
        raise SystemExit(130)


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
    from tournaments.ray_runner import resolve_bots
    from tournaments.spec import SpecError

    try:
        sp = _build_spec(spec, {})
        report = plan_report(sp, resolve_bots(sp)[1], cpus)
    except SpecError as e:
        raise _fail(str(e)) from None
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
def _matches_rows(root: Path, tournament: str) -> list[dict[str, Any]]:
    """The matches of ``tournament``'s whole batches; :class:`~tournaments.log.PartError` (one line
    naming the part) if any batch is damaged or incomplete: a leaderboard without some of its matches
    would mislead.  A part holding another tournament's rows is reported (a warning line) and skipped."""
    from tournaments.log import PartError, check_batch, committed_parts, damage_line

    rows: list[dict[str, Any]] = []
    cols = ["bots", "ranking", "teams", "faults"]
    bad = []
    for p in committed_parts(root, tournament):
        c = check_batch(root, p.parent.name.partition("=")[2], p.name, tournament, full=False)
        if c.foreign and len(c.problems) == 1:
            print(f"{PROG}: warning: {c.problems[0]}", file=sys.stderr)
            continue
        if c.problems or c.matches is None:
            bad.append(c)
            continue
        for r in c.matches.select(cols).to_pylist():
            r["game"] = c.game
            rows.append(r)
    if bad:
        raise PartError(damage_line(bad, root))
    return rows


def _board_or_fail(root: Path, tournament: str) -> list[dict[str, Any]]:
    from tournaments.log import PartError

    try:
        return leaderboard_rows(root, tournament)
    except PartError as e:
        raise _fail(str(e)) from None


def leaderboard_rows(root: Path, tournament: str) -> list[dict[str, Any]]:
    """Per entrant: matches, wins, mean place, faults, mean score per game and overall.

    A seat's *score* in a match is the share of its opponents (the seats not on its team) it placed
    above, a tie counting half: 1 = beat everyone, 0 = last; in a partnership game 1 for a win,
    0 for a loss.  The overall score is the mean over games of the entrant's mean score per game
    (every game weighs the same), with a 95% confidence half-width.
    """
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    wins: dict[str, int] = defaultdict(int)
    faults: dict[str, int] = defaultdict(int)
    places: dict[str, list[int]] = defaultdict(list)
    for r in _matches_rows(root, tournament):
        rank, teams = r["ranking"], r["teams"]
        faulted = {f["seat"] for f in r["faults"] if f["seat"] is not None}
        for seat, label in enumerate(r["bots"]):
            opp = [o for o in range(len(rank)) if teams[o] != teams[seat]]
            won = sum(1.0 if rank[seat] < rank[o] else 0.5 if rank[seat] == rank[o] else 0.0 for o in opp)
            acc[label][r["game"]].append(won / len(opp))
            wins[label] += rank[seat] == 1
            faults[label] += seat in faulted
            places[label].append(rank[seat])
    rows: list[dict[str, Any]] = []
    for label, per_game in acc.items():
        means = {g: sum(v) / len(v) for g, v in per_game.items()}
        var = sum(_var(v) / len(v) for v in per_game.values()) / len(per_game) ** 2
        rows.append({"bot": label, "matches": len(places[label]), "wins": wins[label],
                     "mean_place": sum(places[label]) / len(places[label]), "faults": faults[label],
                     "score": sum(means.values()) / len(means), "ci95": 1.96 * math.sqrt(var),
                     "games": {g: round(m, 4) for g, m in sorted(means.items())}})
    rows.sort(key=lambda r: -r["score"])
    return rows


def _var(v: list[float]) -> float:
    if len(v) < 2:
        return 0.0
    m = sum(v) / len(v)
    return sum((x - m) ** 2 for x in v) / (len(v) - 1)


def print_leaderboard(rows: list[dict[str, Any]], title: str) -> None:
    """The leaderboard, then each entrant's mean score per game."""
    if not rows:
        out.print("no finished matches yet")
        return
    table = Table("#", "bot", "score", "±95%", "matches", "wins", "mean place", "faults",
                  title=f"leaderboard: {title}")
    for i, r in enumerate(rows, 1):
        table.add_row(str(i), r["bot"], f"{r['score']:.3f}", f"{r['ci95']:.3f}", str(r["matches"]),
                      str(r["wins"]), f"{r['mean_place']:.2f}", str(r["faults"]))
    out.print(table)
    games = sorted({g for r in rows for g in r["games"]})
    per = Table("game", *[r["bot"] for r in rows], title="mean score per game")
    for g in games:
        per.add_row(g, *[f"{r['games'][g]:.3f}" if g in r["games"] else "-" for r in rows])
    out.print(per)
    out.print("score: share of opponents placed below (ties half; partnership: 1 win, 0 loss); a faulting "
              "bot is placed last; overall: the mean over games")


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
        raise _fail(str(e)) from None
    tid = _one_tournament(output, tournament)
    rows = _board_or_fail(output, tid)
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
    not read whole, is missing, or holds another tournament's rows) is not counted: a warning line on
    stderr names it (``damaged`` in --json), and ``cardarena tournament repair`` quarantines it."""
    from tournaments.log import manifest_path, read_manifest, scan_matches, tournaments_in
    from tournaments.spec import SpecError, check_path

    try:
        check_path(output, "OUTPUT")
    except SpecError as e:
        raise _fail(str(e)) from None
    ids = tournaments_in(output)
    if not ids:
        raise _fail(f"no tournament in {output} (no _tournaments/*.json manifest)")
    rows = []
    for tid in ids:
        try:
            m = read_manifest(output, tid) or {}
        except (OSError, ValueError) as e:
            raise _fail(f"the manifest {manifest_path(output, tid)} cannot be read "
                        f"({str(e).splitlines()[0][:100] if str(e) else type(e).__name__})") from None
        if not isinstance(m, dict):
            raise _fail(f"the manifest {manifest_path(output, tid)} is corrupt (not a JSON object)")
        done, bad = scan_matches(output, tid)
        for c in bad:
            print(f"{PROG}: warning: {c.problems[0]}; not counted (`{PROG} repair {output}` quarantines it, "
                  "`--resume` replays its matches)", file=sys.stderr)
        rows.append({"tournament": tid, "done": len(done), "total": m.get("total_matches"),
                     "games": [g["id"] for g in m.get("games", [])], "bots": m.get("bots", {}),
                     "created_at": m.get("created_at"), "updated_at": m.get("updated_at"),
                     "damaged": [p for c in bad for p in c.problems]})
    if as_json:
        print(json.dumps(rows))
        return
    from tournaments.analysis.tables import console, fit_table
    if wide:
        table = fit_table("tournament", "matches done", "games", "entrants", "updated", ids=("tournament",))
        for r in rows:
            table.add_row(r["tournament"], f"{r['done']} / {r['total']}", ", ".join(r["games"]),
                          ", ".join(r["bots"]), str(r["updated_at"]))
        console(True, out).print(table)
        return
    table = fit_table("tournament", "done", "games", "entrants", "updated", ids=("tournament",))
    for r in rows:
        table.add_row(r["tournament"], f"{r['done']} / {r['total']}", str(len(r["games"])),
                      str(len(r["bots"])), str(r["updated_at"] or "-")[:16].replace("T", " "))
    out.print(table)
    out.print("(--wide lists the games and entrants)")


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
    from tournaments.log import begin_epoch, clean_orphans, read_manifest, repair
    from tournaments.ray_runner import TournamentError, _lock

    tid = _one_tournament(output, tournament)
    try:
        held = _lock(output, tid)
    except TournamentError as e:
        raise _fail(str(e)) from None
    except OSError as e:
        raise _fail(_os_line(e)) from None
    try:   # the same steps as a resume: fence off a killed run's workers, drop orphans, then certify
        epoch = begin_epoch(output, tid)
        orphans = clean_orphans(output, tid, before_epoch=epoch)
        fixed = repair(output, tid)
        total = (read_manifest(output, tid) or {}).get("total_matches")
    except OSError as e:
        raise _fail(_os_line(e)) from None
    except ValueError as e:
        raise _fail(str(e)) from None
    finally:
        held.close()
    if as_json:
        print(json.dumps({"tournament": tid, "done": len(fixed.done), "total": total,
                          "quarantined": [{"part": p, "problems": pr} for p, pr in fixed.quarantined],
                          "replay": sorted(fixed.replay), "removed_orphans": len(orphans)}))
        return
    for part, problems in fixed.quarantined:
        print(f"quarantined {part}: {'; '.join(problems)}")
    print(f"{tid}: {len(fixed.done)} of {total} matches in whole batches; "
              f"{len(fixed.quarantined)} batch(es) moved to {output / '_quarantine'}"
              + (f", {len(orphans)} orphaned file(s) removed" if orphans else "")
              + ("" if len(fixed.done) == total else
                 "; play the rest with: cardarena tournament run SPEC --resume (its own spec)"))


def _one_tournament(output: Path, tournament: str | None) -> str:
    from tournaments.log import tournaments_in

    ids = tournaments_in(output)
    if tournament is not None:
        if tournament not in ids:
            raise _fail(f"no tournament {tournament!r} in {output}; it holds: {', '.join(ids) or 'none'}")
        return tournament
    if len(ids) != 1:
        raise _fail(f"{output} holds {len(ids)} tournaments ({', '.join(ids) or 'none'}); pick one with "
                    "--tournament")
    return ids[0]

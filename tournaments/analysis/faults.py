"""``cardarena bots faults DIR NAME``: every fault of one bot in a tournament, grouped by kind and
normalised reason (:func:`bots.faults.group_faults`, as the dashboard groups them), each with the
commands that replay its matches (``cardarena bots replay DIR MATCH_ID`` with its bots, ``cardarena show DIR
MATCH_ID`` in the viewer, ``cardarena verify DIR --match ID`` through the engine).

NAME is an entrant's label (``matches.bots``), a submitted bot's ``NAME@VERSION`` or its ``NAME``
(``matches.bot_refs``: every version of it).  Bad input (no tournament, no entrant of that name) is one
line on stderr, exit 2; the report exits 0 whether or not the bot faulted.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

SHOWN = 5
"""Matches listed per group in the text report (``--json`` lists every fault)."""
FRAMES = 6
"""Lines of the end of each group's first traceback in the text report (``--json`` has all it kept)."""


def fault_rows(log: Any) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """(every fault of the tournament log ``log`` in the order the matches finished, each with
    ``bot`` (the entrant), ``ref``, ``kind``, ``reason``, ``game``, ``match_id``, ``seat``, ``ply``;
    every (entrant, ref) pair that played)."""
    rows: list[dict[str, Any]] = []
    entrants: set[tuple[str, str]] = set()
    df = log.sql("SELECT match_id, game, bots, bot_refs, faults FROM matches ORDER BY finished_at, match_id")
    for m in df.iter_rows(named=True):
        bots, refs = list(m["bots"]), list(m["bot_refs"])
        entrants.update(zip(bots, refs, strict=False))
        for f in m["faults"] or []:
            seat = f.get("seat")
            known = isinstance(seat, int) and 0 <= seat < len(bots)
            rows.append({"bot": bots[seat] if known else "(engine)", "ref": refs[seat] if known else "",
                         "kind": f.get("kind") or "?", "reason": f.get("reason") or "", "game": m["game"],
                         "match_id": m["match_id"], "seat": seat, "ply": f.get("ply")})
    return rows, sorted(entrants)


def matches_name(name: str, bot: str, ref: str) -> bool:
    """``name`` names the entrant ``bot`` (its label), its bot ``ref`` (``NAME@K``) or that ref's NAME."""
    return name in (bot, ref, ref.partition("@")[0])


def traceback_tail(reason: str, lines: int = FRAMES) -> list[str]:
    """The last ``lines`` lines of the traceback a logged reason carries after its first line
    (:meth:`bots.faults.Fault.detail`), blank lines dropped; [] when it has none."""
    rest = [ln.rstrip() for ln in reason.strip().splitlines()[1:] if ln.strip()]
    return rest[-lines:]


def replay_commands(directory: Path, match_id: str) -> dict[str, str]:
    d = shlex.quote(str(directory))
    return {"show": f"cardarena show {d} {match_id}", "verify": f"cardarena verify {d} --match {match_id}",
            "bot": f"cardarena bots replay {d} {match_id}"}


def report(directory: Path, name: str, log: Any) -> dict[str, Any]:
    """The fault report of ``name``: ``entrants`` it names, ``faults`` (how many), ``groups``."""
    from bots.faults import group_faults
    rows, entrants = fault_rows(log)
    named = [(b, r) for b, r in entrants if matches_name(name, b, r)]
    if not named:
        known = sorted({b for b, _ in entrants} | {r for _, r in entrants})
        raise LookupError(f"no entrant named {name!r} in {directory}; entrants: {', '.join(known) or 'none'}")
    mine = [r for r in rows if matches_name(name, r["bot"], r["ref"])]
    groups = []
    for g in group_faults(mine):
        faults = [{**{k: r[k] for k in ("game", "match_id", "seat", "ply", "reason")}, "entrant": r["bot"],
                   "replay": replay_commands(directory, r["match_id"])} for r in g["rows"]]
        groups.append({"entrant": g["bot"], "kind": g["kind"], "reason": g["reason"], "count": g["count"],
                       "matches": g["matches"], "games": g["games"], "faults": faults})
    return {"directory": str(directory), "name": name,
            "entrants": [{"entrant": b, "ref": r} for b, r in named], "faults": len(mine), "groups": groups}


def faults_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="the tournament's output directory")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="the entrant's label, or a submitted bot's "
                                        "NAME or NAME@VERSION")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Every fault of one bot in a tournament, grouped by kind and normalised reason, with the
    commands that replay each (`cardarena bots replay DIR MATCH_ID`, `cardarena show DIR MATCH_ID`)."""
    from bots.failure import fail, one_line
    from tournaments.analysis.cli import PROG, _open
    log = _open(directory, ("matches",))
    try:
        rep = report(directory, name, log)
    except LookupError as e:
        fail(PROG, str(e.args[0]))
    if as_json:
        print(json.dumps(rep, indent=2))
        return
    who = ", ".join(e["entrant"] + (f" ({e['ref']})" if e["ref"] != e["entrant"] else "")
                    for e in rep["entrants"])
    if not rep["faults"]:
        print(f"{one_line(who)}: no fault in {directory}")
        return
    print(f"{one_line(who)}: {rep['faults']} fault(s) in {len(rep['groups'])} group(s) (one bug, one "
          "group: kind and reason with its numbers, cards and ids made placeholders)")
    for i, g in enumerate(rep["groups"], 1):
        games = one_line(", ".join(g["games"]))
        print(f"{i}. {one_line(g['kind'])} x{g['count']} in {g['matches']} match(es) of {games}"
              f" ({one_line(g['entrant'])}): {one_line(g['reason'])}")
        first = g["faults"][0]
        print(f"   first: match {one_line(first['match_id'])} seat {first['seat']} ply {first['ply']}: "
              f"{one_line(first['reason'].strip().splitlines()[0] if first['reason'].strip() else '', 300)}")
        tb = traceback_tail(first["reason"])
        if tb:
            print("   traceback (its end):")
            for line in tb:
                print(f"   | {one_line(line, 300)}")
        for f in g["faults"][:SHOWN]:
            print(f"   replay: {one_line(f['replay']['bot'])}   (viewer: {one_line(f['replay']['show'])})")
        if len(g["faults"]) > SHOWN:
            print(f"   ... and {len(g['faults']) - SHOWN} more (--json lists every fault)")

"""``cardarena bots replay DIR MATCH_ID [--bot NEW] [--seat S]``: play a logged tournament match again,
with its bots, to debug a fault.

The match is dealt as the tournament dealt it (its deal seed, options and deal cap) and every seat's
bot gets the seed the tournament gave it (``tournaments.schedule.bot_seed``: HMAC of the tournament
secret kept in ``DIR/_tournaments/<id>.secret``, 64 hex digits; read with
:func:`tournaments.ledger.read_secret`), so a deterministic bot makes the same moves and the same
faults again.  ``--bot NEW`` seats another bot (a new version, a file or a submitted bot) in place of
seat ``--seat`` (default: the seat of the match's first fault).  At every fault of the replay the
observation that bot was given is written as JSON (``fault-<match>-<ply>.json``, to ``--out``), ready
for a unit test; for every fault of the log the command says whether the replay faults there again.

In Python, :func:`logged_match` gives what ``bots.match.play`` needs (game, options, seeds, bots)::

    m = logged_match("data/demo", "3f2a...")
    bots.match.play(m.game, m.bot_refs, m.seed, m.max_deals, seeds=m.seat_seeds, **m.options)

Other replays: ``cardarena verify DIR --match ID`` replays the *logged moves* through the engine (it
checks the rules engine, runs no bot); ``cardarena play GAME --seed N`` deals from ``N`` with seats
seeded from ``N`` (``bots.match.seat_seeds``), not from a tournament secret, so it plays another match
than the tournament match whose deal seed is ``N``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer


@dataclass(frozen=True)
class LoggedMatch:
    """A tournament match as logged, with the seeds that replay it."""

    tournament: str
    match_id: str
    game: str
    options: dict[str, Any]
    """The game's options, every one (``matches.options``)."""
    seed: int
    """The deal seed (``matches.seed``)."""
    max_deals: int | None
    board: int
    bots: list[str]
    """The entrants' labels by seat."""
    bot_refs: list[str]
    """The bots by seat as ``matches.bot_refs`` logged them (``bots.match.make_players`` loads each)."""
    seat_seeds: list[int]
    """Each seat's own seed (the tournament's ``bot_seed``)."""
    faults: list[dict[str, Any]]
    """``matches.faults``: seat, kind, ply, reason."""
    actions: list[tuple[int, str]]
    """The logged (seat, action) of every ply."""
    limits: dict[str, Any]
    """The spec's ``[limits]`` (``move_s``, ``bank_s``, ``memory_mb``, ``sandbox_builtins``)."""


def logged_match(directory: str | Path, match_id: str) -> LoggedMatch:
    """The match ``match_id`` of the tournament log in ``directory``, with its seat seeds derived from
    the tournament's secret.  ``LookupError`` (one line) when there is no such match, or no secret
    (a tournament started before secrets were kept); ``tournaments.analysis.views.LogError`` for a
    directory that is not a tournament log."""
    from tournaments.analysis.views import open_log
    from tournaments.ledger import read_manifest, read_secret
    from tournaments.schedule import bot_seed
    root = Path(directory)
    log = open_log(root, tables=("matches", "moves"))
    if not re.fullmatch(r"[0-9A-Za-z_.:-]{1,200}", match_id):
        raise LookupError(f"{match_id[:80]!r} is not a match id")
    rows = log.sql(f"SELECT tournament, game, options, seed, max_deals, board, bots, bot_refs, faults "
                   f"FROM matches WHERE match_id = '{match_id}'").to_dicts()
    if not rows:
        raise LookupError(f"no match {match_id!r} in {root} (`cardarena query {root} \"SELECT match_id "
                          "FROM matches\"` lists them)")
    row = rows[0]
    tid = row["tournament"]
    try:
        secret = read_secret(root, tid)
    except ValueError as e:
        raise LookupError(str(e)) from None
    if secret is None:
        raise LookupError(f"tournament {tid!r} in {root} has no secret (_tournaments/{tid}.secret): "
                          "its bots' seeds cannot be derived")
    manifest = read_manifest(root, tid) or {}
    limits = dict((manifest.get("spec") or {}).get("limits") or {})
    n = len(row["bot_refs"])
    moves = log.sql(f"SELECT seat, action FROM moves WHERE match_id = '{match_id}' ORDER BY ply").rows()
    return LoggedMatch(tid, match_id, row["game"], json.loads(row["options"]), int(row["seed"]),
                       row["max_deals"], int(row["board"]), list(row["bots"]), list(row["bot_refs"]),
                       [bot_seed(secret, row["game"], row["board"], match_id, s) for s in range(n)],
                       [dict(f) for f in row["faults"] or []], [(int(s), str(a)) for s, a in moves], limits)


def replay(m: LoggedMatch, out: Path, bot: str | None = None, seat: int | None = None,
           bots_data: str | None = None) -> dict[str, Any]:
    """Play ``m`` again (``bot`` at ``seat`` when given); write each fault's observation under ``out``;
    return the report ``--json`` prints."""
    from bots.match import close_players, make_players, play_match
    from bots.sandbox import DEFAULT_LIMITS, Limits
    from engine import load_game
    refs = list(m.bot_refs)
    if bot is not None:
        assert seat is not None
        refs[seat] = bot
    lim = m.limits
    limits = (Limits(move_time=float(lim["move_s"]), time_bank=float(lim["bank_s"]),
                     memory=int(lim["memory_mb"]) << 20, group_memory=int(lim["memory_mb"]) << 20)
              if {"move_s", "bank_s", "memory_mb"} <= lim.keys() else DEFAULT_LIMITS)
    game = load_game(m.game, **m.options)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[tuple[int | None, int], str] = {}

    def on_fault(fault: Any, obs: dict[str, Any]) -> None:
        path = out / f"fault-{m.match_id}-{fault.ply}.json"
        path.write_text(json.dumps({"match_id": m.match_id, "game": m.game, "seat": fault.seat,
                                    "ply": fault.ply, "bot": refs[fault.seat], "outcome": fault.outcome,
                                    "reason": fault.reason, "observation": obs}, indent=1, default=str)
                        + "\n")
        written[(fault.seat, fault.ply)] = str(path)

    players = make_players(game, refs, m.seed, sandbox=bool(lim.get("sandbox_builtins", False)),
                           limits=limits, data_dir=bots_data, seeds=m.seat_seeds)
    try:
        r = play_match(game, players, m.seed, m.max_deals, seeds=m.seat_seeds, contain_errors=True,
                       on_fault=on_fault)
    finally:
        close_players(players)
    same = 0
    for (s, a), (s2, a2) in zip(m.actions, r.moves, strict=False):
        if (s, a) != (s2, a2):
            break
        same += 1
    new: dict[tuple[Any, Any], Any] = {(f.seat, f.ply): f for f in r.faults}
    logged = []
    for f in m.faults:
        again = new.get((f.get("seat"), f.get("ply")))
        logged.append({"seat": f.get("seat"), "ply": f.get("ply"), "kind": f.get("kind"),
                       "reason": (f.get("reason") or "").splitlines()[0] if f.get("reason") else "",
                       "replaced": bot is not None and f.get("seat") == seat,
                       "faults_again": again is not None,
                       "replay_kind": again.outcome if again is not None else None})
    return {"match_id": m.match_id, "tournament": m.tournament, "game": m.game, "seed": m.seed,
            "seat_seeds": m.seat_seeds, "bot_refs": refs, "logged_bot_refs": m.bot_refs,
            "replaced_seat": seat if bot is not None else None,
            "moves": len(r.moves), "logged_moves": len(m.actions), "same_moves": same,
            "logged_faults": logged,
            "faults": [{"seat": f.seat, "ply": f.ply, "kind": f.outcome, "reason": f.reason,
                        "bot": refs[f.seat] if f.seat is not None else None,
                        "observation": written.get((f.seat, f.ply))} for f in r.faults],
            "error": r.error, "placement": r.placement, "scores": list(r.state.scores())}


def replay_cmd(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="the tournament's output directory")],
    match_id: Annotated[str, typer.Argument(metavar="MATCH_ID", help="the match to replay (as `bots "
                                            "faults` and `query` show it)")],
    bot: Annotated[str | None, typer.Option("--bot", metavar="BOT", help="another bot (a file, folder, "
                                            "built-in or submitted NAME@VERSION) for --seat")] = None,
    seat: Annotated[int | None, typer.Option("--seat", metavar="S", min=0, max=15,
                                             help="the seat --bot takes (default: the first fault's)")
                    ] = None,
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="where fault-<match>-<ply>.json files "
                                      "go")] = Path("."),
    bots_data: Annotated[str | None, typer.Option("--bots-data", metavar="DIR", help="the bots registry "
                                                  "(default: the one `bots submit` uses)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Play a logged tournament match again with the tournament's seeds (the same deal, the same seed
    for each seat's bot); with --bot, a new version takes --seat.  Every fault's observation is written
    as fault-<match>-<ply>.json; for each logged fault it says whether the replay faults there again."""
    from bots.failure import fail, one_line
    from tournaments.analysis.cli import PROG, _open
    from tournaments.analysis.views import LogError
    _open(directory, ("matches",))   # a one-line error for a directory that is not a tournament log
    try:
        m = logged_match(directory, match_id)
    except (LookupError, LogError) as e:
        fail(PROG, str(e.args[0]) if e.args else str(e))
    if seat is not None and bot is None:
        fail(PROG, "--seat names the seat --bot takes; give --bot too")
    if seat is not None and seat >= len(m.bot_refs):
        fail(PROG, f"--seat {seat}: match {match_id} has seats 0..{len(m.bot_refs) - 1}")
    if bot is not None and seat is None:
        seats = [f["seat"] for f in m.faults if isinstance(f.get("seat"), int)]
        if not seats:
            fail(PROG, f"match {match_id} has no bot fault: say which seat --bot takes with --seat")
        seat = seats[0]
    try:
        rep = replay(m, out, bot, seat, bots_data)
    except ValueError as e:   # an unknown bot, a bot that will not load
        fail(PROG, one_line(str(e)))
    except OSError as e:
        fail(PROG, f"cannot write to {out}: {one_line(str(e))}")
    if as_json:
        print(json.dumps(rep, indent=2))
        return
    who = ", ".join(f"{s}: {one_line(b)}" for s, b in enumerate(rep["bot_refs"]))
    print(f"replayed {m.game} match {match_id} (tournament {m.tournament}, deal seed {m.seed}) with the "
          f"tournament's seat seeds; seats {who}")
    print(f"{rep['moves']} moves; the first {rep['same_moves']} of the logged {rep['logged_moves']} "
          "played again identically")
    for f in rep["logged_faults"]:
        head = f"logged fault: seat {f['seat']} ply {f['ply']} {one_line(f['kind'] or '?')}"
        if f["faults_again"]:
            verdict = (f"the new bot still faults there ({f['replay_kind']})" if f["replaced"]
                       else f"faults again ({f['replay_kind']})")
        else:
            verdict = ("the new bot does not fault there" if f["replaced"]
                       else "no fault there in the replay")
        print(f"{head}: {verdict}")
    for f in rep["faults"]:
        print(f"replay fault: seat {f['seat']} ({one_line(f['bot'] or '')}) ply {f['ply']} "
              f"{f['kind']}: {one_line(f['reason'].splitlines()[0] if f['reason'] else '', 200)}")
        print(f"   observation: {f['observation']}")
    if rep["error"]:
        print(f"engine error: {one_line(rep['error'].splitlines()[0])}")
    if not rep["faults"]:
        print("no fault in the replay")

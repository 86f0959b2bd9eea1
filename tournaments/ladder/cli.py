"""``cardarena ladder ...``: a continuous ladder (docs/ladder.md).

Bad input (a malformed spec, a missing ladder, a quota, an unknown version) exits 2 with one line;
never a traceback.
"""
from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from bots.failure import fail

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="A continuous ladder: submissions over time, placement, matchmaking, settlement.")
PROG = "cardarena ladder"


def _root(out: str) -> Path:
    from tournaments.spec import usable_path
    if not usable_path(out):
        fail(PROG, "OUT: not a usable path")
    root = Path(out)
    if not (root / "_ladder" / "ladder.json").is_file():
        fail(PROG, f"no ladder in {out} (no _ladder/ladder.json); create one with "
                   "`cardarena ladder create SPEC --out DIR`")
    return root


@contextlib.contextmanager
def _opened(out: str, tables: tuple[str, ...] = ()) -> Iterator[Path]:
    """The ladder's directory; for a ladder in an object store, a temporary local copy of its spec,
    its records and ``tables`` of its log (tournaments/ladder/remote.py), removed at the end."""
    from tournaments.ladder.remote import RecordError, local_copy, read_spec
    from tournaments.ladder.state import LadderError, LadderStore
    from tournaments.store import StoreError, is_uri, open_store, restore_uri

    if not is_uri(restore_uri(out)):
        yield _root(out)
        return
    with contextlib.ExitStack() as stack:
        try:
            store = open_store(restore_uri(out))
            spec = read_spec(store)
            root = stack.enter_context(local_copy(store, spec.name, list(tables)))[0]
            LadderStore(root)   # (the records read now: a damaged one fails here, in one line)
        except (StoreError, RecordError, LadderError) as e:
            fail(PROG, str(e))
        yield root


@app.command("create")
def create_cmd(
    spec: Annotated[Path, typer.Argument(help="ladder spec (TOML); see docs/ladder.md")],
    out: Annotated[str, typer.Option("--out", help="the ladder's directory")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Create a ladder: its directory, the reference bots (active, author `reference`)."""
    from tournaments.ladder.core import create_ladder
    from tournaments.ladder.spec import load_ladder_spec
    from tournaments.ladder.state import LadderError
    from tournaments.spec import SpecError

    try:
        sp = load_ladder_spec(spec)
        root = create_ladder(sp, out)
    except (SpecError, LadderError) as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, f"{(e.strerror or str(e)).lower()} writing {e.filename or out}")
    if as_json:
        print(json.dumps({"ladder": sp.name, "out": str(root), "games": [g.id for g in sp.games],
                          "reference": [r.label for r in sp.reference]}))
    else:
        print(f"ladder {sp.name}: {len(sp.games)} games ({', '.join(g.id for g in sp.games)}), "
              f"reference bots {', '.join(r.label for r in sp.reference)} -> {root}")


@app.command("submit")
def submit_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    path: Annotated[Path, typer.Argument(help="the bot: a .py file or a folder with __init__.py")],
    name: Annotated[str, typer.Option("--name", help="the bot's name (versions NAME@1, NAME@2, ...)")],
    author: Annotated[str, typer.Option("--author", help="who submits it")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Store a new version and queue it for validation (quotas: [quotas] per_day and active)."""
    from bots.api import BotLoadError, bot_source
    from tournaments.ladder.core import load_spec
    from tournaments.ladder.state import LadderError, LadderStore
    from tournaments.spec import SpecError

    with _opened(out) as root:
        try:
            src = bot_source(path)
            sp = load_spec(root)
            v, new, note = LadderStore(root).submit(sp, src, name, author)
        except (BotLoadError, LadderError, SpecError) as e:
            fail(PROG, str(e))
    if as_json:
        print(json.dumps({"ref": v.ref, "author": v.author, "state": v.state, "new": new,
                          "duplicate_of": v.duplicate_of, "note": note}))
    else:
        print(f"{v.ref}: {'queued for validation' if new else note}" + (f"; {note}" if new and note else ""))


def _duration(text: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*", text)
    if not m:
        fail(PROG, f"--for: {text!r} is not a duration (e.g. 90s, 10m, 1h)")
    v = float(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}[m.group(2)]
    if not 0 < v <= 366 * 86400:
        fail(PROG, f"--for: {text!r} is out of range (more than 0, at most a year)")
    return v


@app.command("run")
def run_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    address: Annotated[str | None, typer.Option(help="Ray cluster address (default: the local pool)")] = None,
    for_: Annotated[str | None, typer.Option("--for", help="run this long (90s, 10m, 1h)")] = None,
    groups: Annotated[int | None, typer.Option("--groups", min=0, max=10_000_000,
                                               help="schedule this many new groups, then drain")] = None,
    use_ray: Annotated[bool, typer.Option("--ray", help="embedded Ray instead of the local pool")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable summary (no progress lines)")
                       ] = False,
) -> None:
    """The scheduler loop: validate, place, matchmake, rate, publish the board.  Ctrl-C drains."""
    from tournaments.ladder.loop import run_ladder
    from tournaments.ladder.state import LadderError
    from tournaments.spec import SpecError
    from tournaments.store import is_uri, restore_uri

    root: Path | str = restore_uri(out) if is_uri(restore_uri(out)) else _root(out)
    if for_ is None and groups is None:
        fail(PROG, "give --for DURATION or --groups N (the ladder runs until either is reached or Ctrl-C)")
    duration = _duration(for_) if for_ is not None else None
    try:
        s = run_ladder(root, address=address, duration_s=duration, groups=groups,
                       executor="ray" if use_ray or address else "auto",
                       say=(lambda _t: None) if as_json else None)
    except (LadderError, SpecError) as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, f"{(e.strerror or str(e)).lower()} writing {e.filename}")
    if as_json:
        print(json.dumps(s.to_json()))
    else:
        print(f"{s.ladder}: {s.groups_new} new groups, {s.groups_resubmitted} resubmitted, "
              f"{s.groups_committed} committed in {s.seconds:.1f} s ({s.executor})"
              + ("; stopped (run again to go on)" if s.stopped else ""))
    if s.stopped:
        raise SystemExit(130)


def _fmt(x: Any, spec: str = ".2f") -> str:
    return "-" if x is None else format(x, spec)


@app.command("board")
def board_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    game: Annotated[str | None, typer.Option(help="one game's board")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """The latest board snapshot, overall and per game, with its watermark."""
    from tournaments.ladder.core import latest_board, load_spec
    from tournaments.ladder.settle import settlement_summary
    from tournaments.ladder.state import LadderError
    from tournaments.log import PartError

    with _opened(out, ("board",)) as root:
        try:
            sp = load_spec(root)
            b = latest_board(root, sp.name)
            settled = settlement_summary(root)
        except (LadderError, PartError) as e:
            fail(PROG, str(e))
    if game is not None and game not in [g.id for g in sp.games]:
        fail(PROG, f"--game: {game!r} is not a game of this ladder ({', '.join(g.id for g in sp.games)})")
    if b is None:
        b = {"ladder": sp.name, "snapshot": None, "revision": None,
             "watermark": {"seq": 0, "group_id": None, "groups": 0, "at": None}, "overall": [],
             "games": {g.id: [] for g in sp.games}}
    if game is not None:
        b = {**b, "overall": [], "games": {game: b["games"].get(game, [])}}
    b = {**b, "settlement": settled}
    if as_json:
        print(json.dumps(b))
        return
    if settled is not None:
        _print_settlement(settled)
        print()
    w = b["watermark"]
    print(f"{b['ladder']}: snapshot {b['snapshot']} at {w['at']}, watermark group {w['group_id']} "
          f"(seq {w['seq']}); revision {b['revision']}")
    for scope, rows in ([("overall", b["overall"])] if game is None else []) + list(b["games"].items()):
        print(f"\n{scope}")
        print(f"{'#':>3} {'version':<24} {'author':<12} {'strength':>8} {'95% CI':>15} {'ranks':>7} "
              f"{'groups':>6} {'matches':>7} {'faults':>6}")
        for r in rows:
            ci = _fmt(r["lo95"]) + ".." + _fmt(r["hi95"])
            ranks = f"{r['rank_lo']}-{r['rank_hi']}"
            print(f"{r['rank']:>3} {r['ref']:<24} {r['author']:<12} {_fmt(r['strength']):>8} {ci:>15} "
                  f"{ranks:>7} "
                  f"{r['groups']:>6} {r['matches']:>7} {_fmt(r['fault_rate']):>6}"
                  + (" provisional" if r["provisional"] else ""))


def status_data(root: Path) -> dict[str, Any]:
    from tournaments.ladder.core import load_view
    from tournaments.ladder.settle import settlement_summary
    from tournaments.ladder.state import LadderStore

    view = load_view(root)
    stats = view.stats()
    now = datetime.now(UTC)
    store = LadderStore(root)
    versions = []
    by_state: dict[str, int] = {}
    for v in view.versions:
        st = stats.get(v.ref)
        last = st.last_group_at if st else None
        by_state[v.state] = by_state.get(v.state, 0) + 1
        versions.append({"ref": v.ref, "name": v.name, "version": v.version, "author": v.author,
                         "state": v.state, "groups": st.groups if st else 0,
                         "matches": st.matches if st else 0,
                         "last_group_at": last.isoformat(timespec="seconds") if last else None,
                         "since_last_group_s": round((now - last).total_seconds(), 1) if last else None,
                         "fault_rate": st.fault_rate if st else None, "games": v.games,
                         "submitted_at": v.submitted_at, "duplicate_of": v.duplicate_of, "chosen": v.chosen})
    pending = view.pending()
    changes = [{"ref": c.ref, "from": c.from_state, "to": c.to_state, "reason": c.reason, "at": c.at}
               for c in store.changes()]
    return {"ladder": view.tournament, "closed": store.closed(), "versions": versions, "states": by_state,
            "groups": {"committed": len(view.committed), "in_flight": len(pending),
                       "waiting": by_state.get("validating", 0)}, "changes": changes,
            "settlement": settlement_summary(root)}


def _print_settlement(st: dict[str, Any] | None) -> None:
    if st is None:
        return
    if not st["places"]:
        print(f"settlement under way (key SHA-256 {st.get('key_sha256')}); frozen: "
              f"{', '.join(st.get('frozen', []))}")
        return
    print(f"settled at {st['settled_at']} in {st.get('groups')} groups ({st.get('stop')}); key SHA-256 "
          f"{st.get('key_sha256')}, key {st.get('key')}")
    for r in st["places"]:
        print(f"{r['place']:>3}{'=' if r['shared'] else ' '} {r['ref']:<24} {r['author']:<12} "
              f"{r['strength']:+.3f} [{r['lo95']:+.3f}, {r['hi95']:+.3f}]")


@app.command("status")
def status_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable output")] = False,
) -> None:
    """Versions by state, groups in flight and waiting, time since each version's last group."""
    from tournaments.ladder.state import LadderError
    from tournaments.log import PartError

    with _opened(out, ("matches", "groups")) as root:
        try:
            data = status_data(root)
        except (LadderError, PartError) as e:
            fail(PROG, str(e))
    if as_json:
        print(json.dumps(data))
        return
    g = data["groups"]
    print(f"{data['ladder']}{' (closed)' if data['closed'] else ''}: {g['committed']} groups committed, "
          f"{g['in_flight']} in flight, {g['waiting']} versions waiting for validation")
    print(f"{'version':<24} {'author':<12} {'state':<11} {'groups':>6} {'last group':>12} {'faults':>6}")
    for v in data["versions"]:
        since = "-" if v["since_last_group_s"] is None else f"{v['since_last_group_s']:.0f} s ago"
        print(f"{v['ref']:<24} {v['author']:<12} {v['state']:<11} {v['groups']:>6} {since:>12} "
              f"{_fmt(v['fault_rate']):>6}")
    if data["settlement"] is not None:
        print()
        _print_settlement(data["settlement"])


@app.command("retire")
def retire_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    ref: Annotated[str, typer.Argument(help="the version, NAME@V")],
) -> None:
    """Retire a version: it keeps its history and plays no more."""
    from tournaments.ladder.state import LadderError, LadderStore

    with _opened(out) as root:
        try:
            store = LadderStore(root)
            v = store.version(ref)
            if v.reference:
                raise LadderError(f"{ref} is a reference bot: it stays in the pool unchanged")
            if v.state in ("retired", "rejected"):
                raise LadderError(f"{ref} is already {v.state}")
            store.move(ref, "retired", "retired by the organiser or its author")
        except LadderError as e:
            fail(PROG, str(e))
    print(f"{ref}: retired")


@app.command("choose")
def choose_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    ref: Annotated[str, typer.Argument(help="the version, NAME@V, its author's choice for the settlement")],
) -> None:
    """Choose the version that settles for its author (default: the author's latest active one)."""
    from tournaments.ladder.state import LadderError, LadderStore

    with _opened(out) as root:
        try:
            LadderStore(root).choose(ref)
        except LadderError as e:
            fail(PROG, str(e))
    print(f"{ref}: chosen for the settlement")
@app.command("close")
def close_cmd(
    out: Annotated[str, typer.Argument(help="the ladder's directory")],
    budget: Annotated[int | None, typer.Option("--budget", min=1, max=1_000_000,
                                               help="settlement groups at most ([settlement] budget)")
                      ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable result")] = False,
) -> None:
    """Settle: lock submissions, freeze one version per author, play fresh secret boards, announce."""
    from tournaments.ladder.settle import close_ladder
    from tournaments.ladder.state import LadderError
    from tournaments.spec import SpecError
    from tournaments.store import is_uri, restore_uri

    root: Path | str = restore_uri(out) if is_uri(restore_uri(out)) else _root(out)
    try:
        result = close_ladder(root, budget=budget, say=(lambda _t: None) if as_json else None)
    except (LadderError, SpecError) as e:
        fail(PROG, str(e))
    except OSError as e:
        fail(PROG, f"{(e.strerror or str(e)).lower()} writing {e.filename}")
    if as_json:
        print(json.dumps(result))
        return
    print(f"{result['ladder']}: settled in {result['groups']} groups ({result['stop']}); key SHA-256 "
          f"{result['key_sha256']}")
    for r in result["places"]:
        print(f"{r['place']:>3}{'=' if r['shared'] else ' '} {r['ref']:<24} {r['author']:<12} "
              f"{r['strength']:+.3f} [{r['lo95']:+.3f}, {r['hi95']:+.3f}]")

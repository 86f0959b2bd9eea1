"""A ladder's directory, and its state as a function of the committed log.

``OUT`` is a tournament directory (data/README.md) whose tournament id is the ladder's name, plus::

    OUT/_ladder/ladder.json      the normalised spec, its hash, when it was created
    OUT/_ladder/ladder.sqlite    versions and their state changes (tournaments/ladder/state.py)
    OUT/_ladder/bots/            the bots registry of the submitted versions
    OUT/groups/ OUT/ratings_online/ OUT/board/    the ladder's tables (tournaments/ladder/tables.py)

:class:`View` reads it: the groups in order (``seq``), the committed matches of each, the online
ratings replayed from them (:func:`rateable`: groups are rated in ``seq`` order, each once it is
committed, so the rows depend on the log alone), and per version its groups, matches, faults and last
group.  A group with an engine error (``status = error``) is never rated nor charged to a bot: it is
played again as a new group (``rerun_of``).
"""
from __future__ import annotations

import json
import math
import subprocess
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import game_class
from tournaments.ladder import tables
from tournaments.ladder.online import OnlineRatings, Outcome, Params, RatingRow, group_outcome
from tournaments.ladder.spec import LadderSpec, parse_ladder_spec
from tournaments.ladder.state import REFERENCE, LadderError, LadderStore, Version, ladder_dir
from tournaments.ledger import read_manifest, read_secret, secret_fingerprint, write_manifest, write_secret
from tournaments.log import engine_version
from tournaments.schedule import new_secret
from tournaments.store import is_uri, restore_uri

if TYPE_CHECKING:
    from tournaments.analysis.ratings import MatchRec

CHARGED = ("timeout", "crash", "illegal", "memory")
"""Fault kinds charged to a bot (an engine ``error`` never is)."""


def create_ladder(spec: LadderSpec, out: str) -> Path | str:
    """Write a new ladder's directory (or its objects in a store, ``out`` a URI); :class:`LadderError`
    if ``out`` holds another one.  Creating the same spec again changes nothing."""
    if is_uri(restore_uri(out)):
        return _create_remote(spec, restore_uri(out))
    root = Path(out)
    meta = ladder_dir(root) / "ladder.json"
    if meta.exists():
        old = json.loads(meta.read_text())
        if old.get("spec_hash") == spec.spec_hash():
            return root
        raise LadderError(f"--out {out} holds ladder {old.get('name')!r} of another spec; choose another "
                          "directory")
    if read_manifest(root, spec.name) is not None:
        raise LadderError(f"--out {out} holds a tournament {spec.name!r}; choose another directory")
    now = datetime.now(UTC).isoformat(timespec="seconds")
    secret = new_secret()
    write_secret(root, spec.name, secret)
    write_manifest(root, spec.name, _manifest(spec, secret, now))
    store = LadderStore(root)
    store.set_meta(name=spec.name, created_at=now)
    store.add_reference(spec)
    ladder_dir(root).mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps(_ladder_json(spec, now), indent=2, sort_keys=True, default=str) + "\n")
    return root


def _ladder_json(spec: LadderSpec, now: str) -> dict[str, Any]:
    return {"name": spec.name, "spec_hash": spec.spec_hash(), "spec": spec.raw, "created_at": now}


def _manifest(spec: LadderSpec, secret: bytes, now: str) -> dict[str, Any]:
    refs = {r.label: r.bot for r in spec.reference}
    return {"tournament": spec.name, "ladder": True, "spec_hash": spec.spec_hash(), "spec": spec.to_json(),
            "name": spec.name, "games": spec.to_json()["games"], "bots": refs, "total_matches": None,
            "secret": "fresh", "secret_sha256": secret_fingerprint(secret),
            "engine_version": engine_version(), "created_at": now, "updated_at": now, "complete": False}


def _create_remote(spec: LadderSpec, uri: str) -> str:
    """:func:`create_ladder` in an object store (:mod:`tournaments.ladder.remote`): the secret (kept
    apart from the log, as a tournament's), the manifest, the reference bots' records, and last the
    spec, whose presence makes it a ladder (an interrupted create is finished by running it again)."""
    import tempfile

    from tournaments.ladder.remote import SPEC, RecordError, Records
    from tournaments.ledger import secret_store, write_store_secret
    from tournaments.paths import manifest_path
    from tournaments.store import StoreError, open_store

    try:
        store = open_store(uri)
        secret_store(store)
        try:
            old = json.loads(store.get(SPEC))
        except FileNotFoundError:
            old = None
        except ValueError:
            raise LadderError(f"--out {uri}: {SPEC} there is not a ladder spec") from None
        if old is not None:
            if old.get("spec_hash") == spec.spec_hash():
                return uri
            raise LadderError(f"--out {uri} holds ladder {old.get('name')!r} of another spec; choose another "
                              "place")
        mkey = manifest_path("", spec.name).as_posix()
        try:
            held = json.loads(store.get(mkey))
        except FileNotFoundError:
            held = None
        except ValueError:
            held = {}
        if held is not None and not held.get("ladder"):
            raise LadderError(f"--out {uri} holds a tournament {spec.name!r}; choose another place")
        now = datetime.now(UTC).isoformat(timespec="seconds")
        secret = new_secret()
        write_store_secret(store, spec.name, secret)
        with tempfile.TemporaryDirectory(prefix="cardarena-ladder-") as tmp:
            write_manifest(tmp, spec.name, _manifest(spec, secret, now))
            store.put(mkey, manifest_path(tmp, spec.name).read_bytes())
            LadderStore(tmp, Records(store)).add_reference(spec)
        body = (json.dumps(_ladder_json(spec, now), indent=2, sort_keys=True, default=str) + "\n").encode()
        if not store.put_if_absent(SPEC, body):
            raise LadderError(f"--out {uri}: another ladder was created there at the same time")
    except (StoreError, RecordError) as e:
        raise LadderError(str(e)) from None
    return uri


def load_spec(root: Path) -> LadderSpec:
    meta = ladder_dir(root) / "ladder.json"
    try:
        data = json.loads(meta.read_text())
    except FileNotFoundError:
        raise LadderError(f"no ladder in {root} (no _ladder/ladder.json); create one with "
                          "`cardarena ladder create SPEC --out DIR`") from None
    except (OSError, ValueError) as e:
        raise LadderError(f"{meta} cannot be read ({e})") from None
    return parse_ladder_spec(data["spec"])


def secret_of(root: Path, name: str) -> bytes:
    s = read_secret(root, name)
    if s is None:
        raise LadderError(f"the ladder's secret {root}/_tournaments/{name}.secret is missing")
    return s


def revision() -> str:
    """The code that made a snapshot: the git commit when there is one, and the engine version."""
    try:
        r = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                           timeout=5, cwd=Path(__file__).resolve().parent)
        head = r.stdout.strip() if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        head = ""
    return f"{head or 'unknown'} engine {engine_version()}"


def params_of(spec: LadderSpec, tau: float | None = None) -> Params:
    r = spec.rating
    return Params(mu=r.mu, sigma=r.sigma, beta=r.beta, tau=r.tau if tau is None else tau)


@dataclass
class Stats:
    groups: int = 0
    matches: int = 0
    faulted: int = 0
    last_group_at: datetime | None = None
    placement: int = 0
    per_game: dict[str, int] = field(default_factory=dict)

    @property
    def fault_rate(self) -> float | None:
        return self.faulted / self.groups if self.groups else None


@dataclass
class View:
    root: Path
    spec: LadderSpec
    tournament: str
    groups: list[dict[str, Any]]
    committed: dict[str, list[dict[str, Any]]]
    versions: list[Version]

    @property
    def by_id(self) -> dict[str, dict[str, Any]]:
        return {g["group_id"]: g for g in self.groups}

    def pending(self) -> list[dict[str, Any]]:
        """Groups written but not committed: in flight, or abandoned by a stopped run."""
        return [g for g in self.groups if g["group_id"] not in self.committed]

    def errored(self, gid: str) -> bool:
        return any(m["status"] == "error" for m in self.committed.get(gid, []))

    def stats(self) -> dict[str, Stats]:
        """Per version: its committed groups (engine errors left out), matches, faulted groups."""
        out: dict[str, Stats] = defaultdict(Stats)
        for g in self.groups:
            rows = self.committed.get(g["group_id"])
            if rows is None or self.errored(g["group_id"]):
                continue
            at = max(r["finished_at"] for r in rows)
            charged = {r["bots"][f["seat"]] for r in rows for f in r["faults"]
                       if f["seat"] is not None and f["kind"] in CHARGED}
            for ref in set(g["arrangement"]):
                s = out[ref]
                s.groups += 1
                s.matches += len(rows)
                s.faulted += ref in charged
                s.per_game[g["game"]] = s.per_game.get(g["game"], 0) + 1
                s.placement += g["reason"] == "placement"
                if s.last_group_at is None or at > s.last_group_at:
                    s.last_group_at = at
        return out

    def outcome(self, g: dict[str, Any]) -> Outcome:
        return group_outcome(g["group_id"], g["game"], self.committed[g["group_id"]])

    def rateable_prefix(self) -> list[dict[str, Any]]:
        """The groups up to the first one not yet committed, in ``seq`` order."""
        out = []
        for g in self.groups:
            if g["group_id"] not in self.committed:
                break
            out.append(g)
        return out

    def rateable(self) -> list[dict[str, Any]]:
        """The groups the online layer has rated, in order: ``seq`` order, stopping at the first group
        not yet committed; engine-error groups are passed over."""
        out = []
        for g in self.groups:
            if g["group_id"] not in self.committed:
                break
            if not self.errored(g["group_id"]):
                out.append(g)
        return out

    def online(self, params: Params) -> tuple[OnlineRatings, list[RatingRow]]:
        state = OnlineRatings(params)
        rows: list[RatingRow] = []
        for g in self.rateable():
            rows += state.update(self.outcome(g))
        return state, rows


def load_view(root: Path, spec: LadderSpec | None = None) -> View:
    spec = spec or load_spec(root)
    groups = sorted(tables.read(root, "groups", spec.name), key=lambda g: g["seq"])
    seen: set[str] = set()
    uniq = []
    for g in groups:   # (a file written twice by a killed writer holds the same rows)
        if g["group_id"] not in seen:
            seen.add(g["group_id"])
            uniq.append(g)
    committed = tables.committed(root, spec.name).by_group
    return View(root, spec, spec.name, uniq, committed, LadderStore(root).versions())


def rating_dicts(rows: list[RatingRow], state: OnlineRatings, tournament: str) -> list[dict[str, Any]]:
    extra = state.model_fields()
    return [{"tournament": tournament, "group_id": r.group_id, "seq": r.seq, "game": r.game, "ref": r.ref,
             "rank": r.rank, "mu_before": r.mu_before, "sigma_before": r.sigma_before, "mu_after": r.mu_after,
             "sigma_after": r.sigma_after, **extra} for r in rows]


Sink = Callable[[Path], None]
"""Where a new file of the ladder's tables goes too (a ladder in an object store: the store)."""


def sync_ratings(view: View, sink: Sink | None = None) -> tuple[OnlineRatings, int]:
    """Rebuild the online state from the log, check it against the stored ``ratings_online`` rows
    (the stored ones must be a prefix of the rebuild, equal bit for bit) and append the missing
    rows.  (state, rows appended)."""
    state, rows = view.online(params_of(view.spec))
    rebuilt = rating_dicts(rows, state, view.tournament)
    stored = sorted(tables.read(view.root, "ratings_online", view.tournament),
                    key=lambda r: (r["seq"], r["ref"]))
    key = [(r["seq"], r["ref"]) for r in rebuilt]
    order = sorted(range(len(rebuilt)), key=lambda i: key[i])
    rebuilt_sorted = [rebuilt[i] for i in order]
    if stored != rebuilt_sorted[:len(stored)]:
        raise LadderError(f"the stored online ratings in {view.root}/ratings_online differ from their "
                          "rebuild from the log (a changed openskill or a damaged table)")
    new = rebuilt_sorted[len(stored):]
    if new:
        p = tables.append(view.root, "ratings_online", view.tournament, new, first=new[0]["seq"])
        if p is not None and sink is not None:
            sink(p)
    return state, len(new)


def teams_of(game: str) -> bool:
    return bool(game_class(game).teams)


# ------------------------------------------------------------------------------------------ the board
@dataclass(frozen=True)
class BoardInputs:
    """Everything the batch fit of one board needs, gathered from the view in the driver (cheap) and
    picklable, so that the fit (:func:`board_from_inputs`, the costly part) can run in another
    process while the driver goes on scheduling."""

    ladder: str
    watermark: dict[str, Any]
    revision: str
    bootstrap: int
    seed: int
    scopes: list[tuple[str, list[MatchRec]]]
    """``overall`` first, then every game: the match records of the rated groups in it."""
    columns: dict[str, dict[str, dict[str, Any]]]
    """Per scope and version: the row's columns besides the fit's (author, state, counts, online)."""


def board_inputs(view: View, state: OnlineRatings, at: datetime | None = None, seed: int = 0) -> BoardInputs:
    """The inputs of the board of ``view`` (its rated groups) and the online ``state``, stamped ``at``."""
    from tournaments.analysis.ratings import MatchRec

    at = at or datetime.now(UTC)
    rated = view.rateable()
    stats = view.stats()
    vs = {v.ref: v for v in view.versions}
    recs: dict[str, list[MatchRec]] = defaultdict(list)
    matches: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for g in rated:
        rows = view.committed[g["group_id"]]
        for m in rows:
            rec = MatchRec(g["game"], m["match_id"], m["group_id"], m["bots"], m["teams"], m["ranking"],
                           [0.0] * len(m["bots"]))
            recs[g["game"]].append(rec)
            recs["overall"].append(rec)
        for ref in set(g["arrangement"]):
            matches["overall"][ref] += len(rows)
            matches[g["game"]][ref] += len(rows)
    last = rated[-1] if rated else None
    mark = {"seq": last["seq"] if last else 0, "group_id": last["group_id"] if last else None,
            "groups": len(rated), "at": at.isoformat(timespec="seconds")}
    scopes = [(scope, recs.get(scope, [])) for scope in ["overall", *[g.id for g in view.spec.games]]]
    columns: dict[str, dict[str, dict[str, Any]]] = {}
    for scope, ms in scopes:
        cols: dict[str, dict[str, Any]] = {}
        for ref in sorted({str(b) for rec in ms for b in rec.bots}):
            st = stats.get(ref, Stats())
            n = st.groups if scope == "overall" else st.per_game.get(scope, 0)
            v = vs.get(ref)
            mu, sigma = state.overall(ref) if scope == "overall" else state.get(scope, ref)
            cols[ref] = {"author": v.author if v else REFERENCE, "state": v.state if v else "?",
                         "groups": n, "matches": matches[scope][ref], "fault_rate": st.fault_rate,
                         "provisional": n < view.spec.rating.min_groups, "mu": mu, "sigma": sigma}
        columns[scope] = cols
    return BoardInputs(view.tournament, mark, revision(), view.spec.rating.bootstrap, seed, scopes, columns)


def board_from_inputs(inp: BoardInputs) -> dict[str, Any]:
    """The board of ``inp``: overall and per game, every version with a rated group (the batch fit
    with its group bootstrap, seeded by ``inp.seed``)."""
    from tournaments.ladder.board import fit

    boards: dict[str, list[dict[str, Any]]] = {}
    for scope, ms in inp.scopes:
        if not ms:
            boards[scope] = []
            continue
        f = fit(ms, inp.bootstrap, inp.seed)
        boards[scope] = [{**r, **inp.columns[scope][str(r["ref"])]} for r in f.rows()]
    return {"ladder": inp.ladder, "watermark": inp.watermark, "revision": inp.revision,
            "overall": boards.pop("overall"), "games": boards}


def board_snapshot(view: View, state: OnlineRatings, at: datetime | None = None,
                   seed: int = 0) -> dict[str, Any]:
    """The board: overall and per game, every version with a rated group (the batch fit), computed
    here and now (``ladder run`` computes it in a background process: :class:`BoardInputs`)."""
    return board_from_inputs(board_inputs(view, state, at, seed))


def store_board(view: View, board: dict[str, Any], sink: Sink | None = None) -> int:
    """Append a snapshot to the ``board`` table; its number."""
    old = tables.read(view.root, "board", view.tournament)
    snap = 1 + max((r["snapshot"] for r in old), default=0)
    at = datetime.fromisoformat(board["watermark"]["at"])
    rows = []
    for scope, rs in [("overall", board["overall"]), *board["games"].items()]:
        for r in rs:
            rows.append({"tournament": view.tournament, "snapshot": snap, "at": at,
                         "watermark_seq": board["watermark"]["seq"],
                         "watermark_group": board["watermark"]["group_id"],
                         "watermark_groups": board["watermark"]["groups"], "revision": board["revision"],
                         "scope": scope, **{k: r[k] for k in (
                             "ref", "author", "state", "strength", "lo95", "hi95", "rank", "rank_lo",
                             "rank_hi", "groups", "matches", "fault_rate", "provisional", "mu", "sigma")}})
    if not rows:
        rows.append({"tournament": view.tournament, "snapshot": snap, "at": at, "watermark_seq": 0,
                     "watermark_group": None, "watermark_groups": 0, "revision": board["revision"],
                     "scope": "overall", "ref": "",
                     "author": "", "state": "", "strength": None, "lo95": None, "hi95": None, "rank": None,
                     "rank_lo": None, "rank_hi": None, "groups": 0, "matches": 0, "fault_rate": None,
                     "provisional": True, "mu": None, "sigma": None})
    p = tables.append(view.root, "board", view.tournament, rows, first=snap)
    if p is not None and sink is not None:
        sink(p)
    return snap


def latest_board(root: Path, tournament: str) -> dict[str, Any] | None:
    """The latest stored snapshot in ``ladder board --json``'s shape, or None."""
    rows = tables.read(root, "board", tournament)
    if not rows:
        return None
    snap = max(r["snapshot"] for r in rows)
    mine = [r for r in rows if r["snapshot"] == snap]
    first = mine[0]
    out: dict[str, Any] = {"ladder": tournament, "snapshot": snap, "revision": first["revision"],
                           "watermark": {"seq": first["watermark_seq"], "group_id": first["watermark_group"],
                                         "groups": first.get("watermark_groups"),
                                         "at": first["at"].isoformat(timespec="seconds")},
                           "overall": [], "games": {}}
    for r in sorted(mine, key=lambda r: (r["scope"], r["rank"] or 0)):
        if not r["ref"]:
            continue
        row = {k: r[k] for k in ("ref", "author", "state", "strength", "lo95", "hi95", "rank", "rank_lo",
                                 "rank_hi", "groups", "matches", "fault_rate", "provisional", "mu", "sigma")}
        if r["scope"] == "overall":
            out["overall"].append(row)
        else:
            out["games"].setdefault(r["scope"], []).append(row)
    return out


def finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else x

"""The ladder's registry of versions and their lifecycle (``OUT/_ladder/ladder.sqlite``).

A version is ``NAME@V`` of one author.  Its states::

    validating -> placement -> active -> retired
         |            |           |
         v            v           v
      rejected     probation   probation   (fault rate over the threshold; plays nothing more)

Every change is a row of ``changes`` (version, from, to, reason, time), never updated.  The bots'
files live in the bots registry under ``OUT/_ladder`` (``bots.registry.Registry``: an immutable copy
per content hash, versions counted per name), so a worker resolves ``NAME@V`` there.

Submission rules (:meth:`LadderStore.submit`): a name belongs to the author who first submitted it;
content identical to a version of that name is not a new version; content already registered under
another author is accepted and flagged (``duplicate_of``); an author may create at most
``quotas.per_day`` versions in any 24 hours and hold at most ``quotas.active`` versions waiting
(validating or placement); when a version becomes active, the author's oldest active versions over
``quotas.active`` retire.
"""
from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bots.registry import sqlite_session
from tournaments.ladder.spec import LadderSpec

if TYPE_CHECKING:
    from tournaments.ladder.remote import Records

STATES = ("validating", "placement", "active", "retired", "probation", "rejected")
POOL = ("placement", "active")
"""States whose versions are scheduled."""
WAITING = ("validating", "placement")
REFERENCE = "reference"
"""The author of the reference bots."""
AUTHOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions (
    ref TEXT PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL, author TEXT NOT NULL,
    hash TEXT NOT NULL, submitted_at TEXT NOT NULL, state TEXT NOT NULL, games TEXT NOT NULL,
    duplicate_of TEXT, chosen INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, ref TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL,
    reason TEXT NOT NULL, at TEXT NOT NULL);
"""


class LadderError(Exception):
    """A ladder command that cannot go on; the message is one line."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class Version:
    ref: str
    name: str
    version: int
    author: str
    hash: str
    submitted_at: str
    state: str
    games: list[str]
    duplicate_of: str | None = None
    chosen: bool = False

    @property
    def reference(self) -> bool:
        return self.author == REFERENCE


@dataclass(frozen=True)
class Change:
    seq: int
    ref: str
    from_state: str | None
    to_state: str
    reason: str
    at: str


def ladder_dir(root: Path) -> Path:
    return root / "_ladder"


def bots_root(root: Path) -> Path:
    """The bots registry's data directory (``Registry(bots_root(OUT))``)."""
    return ladder_dir(root)


REFRESH_S = 1.0
"""On an object store, how often (at most) the records are listed again while a command reads them."""


class LadderStore:
    """The versions and their changes under ``OUT/_ladder``.

    With ``remote`` (a ladder in an object store, :mod:`tournaments.ladder.remote`) every change is a
    record created in the store, and ``ladder.sqlite`` under ``root`` (a temporary local copy) is a
    cache rebuilt from the records (:meth:`sync`); the methods are the same."""

    def __init__(self, root: str | Path, remote: Records | None = None) -> None:
        self.root = Path(root)
        self.db_path = ladder_dir(self.root) / "ladder.sqlite"
        if remote is None:
            from tournaments.ladder.remote import attached
            remote = attached(self.root)
        self.remote = remote
        self.synced = -float("inf")
        if remote is not None:
            self.sync()

    def exists(self) -> bool:
        return self.db_path.is_file()

    def sync(self) -> None:
        """(On an object store) read the records created since the last call and rebuild the cache."""
        from tournaments.ladder.remote import RecordError
        from tournaments.store import StoreError

        assert self.remote is not None
        try:
            self.remote.refresh()
            f = self.remote.fold()
        except (RecordError, StoreError, KeyError, TypeError, ValueError) as e:
            raise LadderError(f"the ladder's records cannot be read: {e}") from None
        with self.db(write=True) as con:
            for t in ("meta", "versions", "changes"):
                con.execute(f"DELETE FROM {t}")
            con.execute("DELETE FROM sqlite_sequence WHERE name = 'changes'")
            con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(f.meta.items()))
            con.executemany("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
                (v["ref"], v["name"], int(v["version"]), v["author"], v["hash"], v["submitted_at"],
                 v["state"], json.dumps(v.get("games") or []), v.get("duplicate_of"), int(bool(v["chosen"])))
                for v in f.versions])
            for c in f.changes:
                _log(con, c["ref"], c["from"], c["to"], c["reason"], c["at"])
        self.synced = time.monotonic()

    def _fresh(self) -> None:
        if self.remote is not None and time.monotonic() - self.synced >= REFRESH_S:
            self.sync()

    @contextmanager
    def db(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        if not write and not self.db_path.is_file():
            raise LadderError(f"no ladder in {self.root} (no _ladder/ladder.sqlite); create one with "
                              "`cardarena ladder create SPEC --out DIR`")
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        with sqlite_session(self.db_path, _SCHEMA, write, LadderError, "ladder database") as con:
            yield con

    # ------------------------------------------------------------------ meta
    def meta(self) -> dict[str, str]:
        self._fresh()
        with self.db() as con:
            return dict(con.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, **kv: str) -> None:
        """Set ladder facts (on an object store each is written once: the first value stays)."""
        if self.remote is not None:
            from tournaments.ladder.remote import META
            from tournaments.store import StoreError
            try:
                for k, v in kv.items():
                    self.remote.create(f"{META}/{k}.json", {"value": v})
            except StoreError as e:
                raise LadderError(str(e)) from None
            self.sync()
            return
        with self.db(write=True) as con:
            for k, v in kv.items():
                con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (k, v))

    def closed(self) -> bool:
        return "closed_at" in self.meta()

    # ------------------------------------------------------------------ versions
    def versions(self) -> list[Version]:
        self._fresh()
        with self.db() as con:
            rows = con.execute("SELECT ref, name, version, author, hash, submitted_at, state, games, "
                               "duplicate_of, chosen FROM versions ORDER BY submitted_at, ref").fetchall()
        return [Version(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7]), r[8], bool(r[9]))
                for r in rows]

    def version(self, ref: str) -> Version:
        for v in self.versions():
            if v.ref == ref:
                return v
        raise LadderError(f"no version {ref!r} in the ladder (see `cardarena ladder status {self.root}`)")

    def changes(self) -> list[Change]:
        self._fresh()
        with self.db() as con:
            return [Change(*r) for r in con.execute(
                "SELECT seq, ref, from_state, to_state, reason, at FROM changes ORDER BY seq")]

    def add_reference(self, spec: LadderSpec) -> None:
        """The reference bots, active from the start, author ``reference``."""
        at = now_iso()
        if self.remote is not None:
            from tournaments.ladder.remote import VERSIONS
            for r in spec.reference:
                self.remote.create(f"{VERSIONS}/{r.label}.json", {
                    "ref": r.label, "name": r.label, "version": 0, "author": REFERENCE, "hash": "",
                    "code_hash": "", "entry": "", "submitted_at": at, "state": "active",
                    "games": [g.id for g in spec.games], "duplicate_of": None, "reason": "reference bot"})
            self.sync()
            return
        with self.db(write=True) as con:
            for r in spec.reference:
                if con.execute("SELECT 1 FROM versions WHERE ref = ?", (r.label,)).fetchone():
                    continue
                con.execute("INSERT INTO versions VALUES (?, ?, 0, ?, '', ?, 'active', ?, NULL, 0)",
                            (r.label, r.label, REFERENCE, at, json.dumps([g.id for g in spec.games])))
                _log(con, r.label, None, "active", "reference bot", at)

    def move(self, ref: str, to: str, reason: str, games: list[str] | None = None,
             when: str | None = None) -> Change:
        """Change the state of ``ref`` (logged with ``reason``); ``games``: set its games too."""
        assert to in STATES, to
        at = when or now_iso()
        if self.remote is not None:
            from tournaments.ladder.remote import RecordError
            from tournaments.store import StoreError
            self.sync()
            frm = self.version(ref).state
            try:
                rec = self.remote.change(ref, {"from": frm, "to": to, "reason": reason, "at": at,
                                               "games": games})
            except (RecordError, StoreError) as e:
                raise LadderError(str(e)) from None
            self.sync()
            seq = max((c.seq for c in self.changes() if c.ref == ref and c.at == at and c.to_state == to),
                      default=0)
            return Change(seq, ref, rec["from"], to, reason, at)
        with self.db(write=True) as con:
            row = con.execute("SELECT state FROM versions WHERE ref = ?", (ref,)).fetchone()
            if row is None:
                raise LadderError(f"no version {ref!r} in the ladder")
            con.execute("UPDATE versions SET state = ? WHERE ref = ?", (to, ref))
            if games is not None:
                con.execute("UPDATE versions SET games = ? WHERE ref = ?", (json.dumps(games), ref))
            seq = _log(con, ref, row[0], to, reason, at)
        return Change(seq, ref, row[0], to, reason, at)

    def choose(self, ref: str) -> None:
        """Mark ``ref`` as its author's choice for the settlement (the only one of that author)."""
        v = self.version(ref)
        if v.reference:
            raise LadderError(f"{ref} is a reference bot; an author chooses one of their own versions")
        if v.state not in POOL:
            raise LadderError(f"{ref} is {v.state}; only a version in placement or active can be chosen")
        if self.remote is not None:
            from tournaments.ladder.remote import RecordError
            from tournaments.store import StoreError
            try:
                self.remote.change(ref, {"from": v.state, "to": v.state, "chosen": True, "at": now_iso(),
                                         "reason": "chosen by its author for the settlement"})
            except (RecordError, StoreError) as e:
                raise LadderError(str(e)) from None
            self.sync()
            return
        with self.db(write=True) as con:
            con.execute("UPDATE versions SET chosen = 0 WHERE author = ?", (v.author,))
            con.execute("UPDATE versions SET chosen = 1 WHERE ref = ?", (ref,))
            _log(con, ref, v.state, v.state, "chosen by its author for the settlement", now_iso())

    def submit(self, spec: LadderSpec, src: Any, name: str, author: str,
               now: datetime | None = None) -> tuple[Version, bool, str]:
        """Store ``src`` as the next version of ``name`` by ``author`` and queue it (validating).

        Returns (version, new, note): ``new`` False when the content is that of a version of ``name``
        already (no new version).  :class:`LadderError` (one line) for a name of another author, a
        closed ladder or a quota."""
        from bots.registry import Registry, check_name

        try:
            check_name(name)
        except ValueError as e:
            raise LadderError(f"--name: {e}") from None
        if not AUTHOR_RE.fullmatch(author) or author == REFERENCE:
            raise LadderError(f"--author: {author!r} is not an author name (1-64 of letters, digits, "
                              f"'_.@+-'; {REFERENCE!r} is the reference bots')")
        if self.closed():
            raise LadderError(f"the ladder in {self.root} is closed (settled); no more submissions")
        h = src.content_hash()
        vs = self.versions()
        if any(v.reference and v.name == name for v in vs):
            raise LadderError(f"--name: {name!r} is a reference bot of this ladder")
        owner = next((v.author for v in vs if v.name == name), None)
        if owner is not None and owner != author:
            raise LadderError(f"--name: {name!r} belongs to author {owner!r}; choose another name")
        same = next((v for v in vs if v.name == name and v.hash == h), None)
        if same is not None:
            return same, False, f"identical to {same.ref} ({same.state}): not a new version"
        when = now or datetime.now(UTC)
        day_ago = (when - timedelta(days=1)).isoformat(timespec="milliseconds")
        mine = [v for v in vs if v.author == author]
        today = [v for v in mine if v.submitted_at > day_ago]
        if len(today) >= spec.quotas.per_day:
            raise LadderError(f"quota: {author} submitted {len(today)} versions in the last 24 hours "
                              f"(quotas.per_day = {spec.quotas.per_day}); the next is accepted after "
                              f"{_later(min(v.submitted_at for v in today))}")
        waiting = [v for v in mine if v.state in WAITING]
        if len(waiting) >= spec.quotas.active:
            raise LadderError(f"quota: {author} has {len(waiting)} versions waiting for validation or "
                              f"placement ({', '.join(v.ref for v in waiting)}; quotas.active = "
                              f"{spec.quotas.active}); submit again once they are rated")
        at = when.isoformat(timespec="milliseconds")
        others = [v for v in vs if v.author != author and not v.reference]
        if self.remote is not None:
            return self._submit_remote(src, name, author, at, others)
        dup = _same_code(self.root, src, others)
        entry = Registry(bots_root(self.root)).add(src, name, [], {"ladder": "queued"})
        v = Version(entry.spec, name, entry.version, author, h, at, "validating", [],
                    dup.ref if dup else None)
        with self.db(write=True) as con:
            con.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?, ?, 'validating', '[]', ?, 0)",
                        (v.ref, name, v.version, author, h, at, v.duplicate_of))
            _log(con, v.ref, None, "validating", "submitted" + (
                f"; flagged: the same content as {dup.ref} of author {dup.author}" if dup else ""), at)
        note = f"flagged: the same content as {dup.ref} of author {dup.author}" if dup else ""
        return v, True, note


    def _submit_remote(self, src: Any, name: str, author: str, at: str, others: list[Version]
                       ) -> tuple[Version, bool, str]:
        """:meth:`submit` on an object store: the files first (under their content hash), then the
        version record, created with a conditional write at the next free version of ``name`` (a
        concurrent submission that took it first is read, and the next one tried)."""
        from bots.registry import check_entry_name
        from tournaments.ladder.remote import CLAIM_TRIES, VERSIONS, RecordError, files_of
        from tournaments.store import StoreError

        assert self.remote is not None
        h, code = src.content_hash(), src.code_hash()
        try:
            check_entry_name(src.path.name)
        except ValueError as e:
            raise LadderError(f"PATH: {e}") from None
        hashes = self.remote.code_hashes()
        dup = next((v for v in others if v.hash == h or hashes.get(v.ref) == code), None)
        try:
            self.remote.put_code(h, files_of(src))
            for _ in range(CLAIM_TRIES):
                vs = [v for v in self.versions() if v.name == name]
                same = next((v for v in vs if v.hash == h), None)
                if same is not None:
                    return same, False, f"identical to {same.ref} ({same.state}): not a new version"
                if vs and vs[0].author != author:
                    raise LadderError(f"--name: {name!r} belongs to author {vs[0].author!r}; choose another "
                                      "name")
                version = 1 + max((v.version for v in vs), default=0)
                ref = f"{name}@{version}"
                body = {"ref": ref, "name": name, "version": version, "author": author, "hash": h,
                        "code_hash": code, "kind": "package" if src.package else "file",
                        "entry": src.path.name, "submitted_at": at, "state": "validating", "games": [],
                        "duplicate_of": dup.ref if dup else None,
                        "reason": "submitted" + (f"; flagged: the same content as {dup.ref} of author "
                                                 f"{dup.author}" if dup else "")}
                if self.remote.create(f"{VERSIONS}/{ref}.json", body):
                    self.sync()
                    note = f"flagged: the same content as {dup.ref} of author {dup.author}" if dup else ""
                    return self.version(ref), True, note
                self.sync()   # another submission took this version first
        except (RecordError, StoreError) as e:
            raise LadderError(str(e)) from None
        raise LadderError(f"{CLAIM_TRIES} other versions of {name!r} were submitted at the same time; try "
                          "again")


def _same_code(root: Path, src: Any, others: list[Version]) -> Version | None:
    """The first of ``others`` (other authors' versions) that runs the same code as ``src``: the
    same content, or the same file under another name (:meth:`bots.api.BotSource.code_hash`); a
    version whose stored copy is gone is passed over."""
    from bots.registry import Registry

    h, code = src.content_hash(), src.code_hash()
    registry = Registry(bots_root(root))
    for v in others:
        if v.hash == h:
            return v
        try:
            if registry.resolve(v.ref).source().code_hash() == code:
                return v
        except (LookupError, OSError):
            continue
    return None


def _later(iso: str) -> str:
    t = datetime.fromisoformat(iso) + timedelta(days=1)
    return t.isoformat(timespec="seconds")


def _log(con: sqlite3.Connection, ref: str, frm: str | None, to: str, reason: str, at: str) -> int:
    cur = con.execute("INSERT INTO changes (ref, from_state, to_state, reason, at) VALUES (?, ?, ?, ?, ?)",
                      (ref, frm, to, reason, at))
    return int(cur.lastrowid or 0)

"""A ladder in an object store (``ladder create --out s3://BUCKET/PREFIX``).

The log is a tournament log in the store (``tournaments.store``: the runner holds the tournament's
lease, whose epoch fences off the workers of an earlier run; workers stage each group's parts and the
runner publishes them).  What a local ladder keeps in SQLite (the versions and their state changes)
is kept as **append-only records**, one object each, created with a conditional write
(``ObjectStore.put_if_absent``) so that no record is ever overwritten, and written by whoever makes
the change, with or without a running ``ladder run``::

    _ladder/ladder.json                   the spec (as a local ladder's)
    _ladder/versions/NAME@V.json          a version: author, content and code hashes, submitted_at,
                                          its first state (a submission claims V by creating this)
    _ladder/changes/NAME@V/NNNNNN.json    its state changes, numbered from 1 (a change claims N)
    _ladder/meta/KEY.json                 ladder facts (``closed_at``)
    _ladder/code/HASH/ENTRY[/...]         the bot's files, stored before its version record

Two submissions of one name race for the same ``NAME@V``; the loser reads the winner's record and
takes ``V + 1``.  Two changes of one version race for the same number the same way, the loser
applying its change after the winner's.  Every reader folds the records into the same SQLite layout
a local ladder has (``_ladder/ladder.sqlite`` in a temporary local copy, :class:`Records.fold`), so
the rest of the ladder runs unchanged on that copy: the SQLite file is a cache, rebuilt from the
objects.  The runner also copies each version's files from ``_ladder/code`` into the bots registry of
its copy, where it validates them.  A group's batch names the versions' files in the store
(:class:`~tournaments.ladder.code.BotCode`, :func:`code_of`): a worker on any machine copies them into
its own cache and checks them against the registered content hash (:mod:`tournaments.ladder.code`), so no node
needs the runner's disk.  ``ladder close`` keeps the settlement in ``_ladder/settlement.json``
(tournaments/ladder/settle.py).
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments.ladder.code import BotCode
from tournaments.store import Mirror, ObjectStore, StoreError

PREFIX = "_ladder"
VERSIONS = f"{PREFIX}/versions"
CHANGES = f"{PREFIX}/changes"
META = f"{PREFIX}/meta"
CODE = f"{PREFIX}/code"
SPEC = f"{PREFIX}/ladder.json"
SETTLEMENT = f"{PREFIX}/settlement.json"
"""The settlement (``ladder close``): the key's SHA-256 and the frozen versions, created once before
the first settlement board is dealt; the result and the key itself once it is settled."""
CLAIM_TRIES = 20
"""Conditional creates of a record before a submission or a change gives up (one line)."""


class RecordError(Exception):
    """A record that cannot be written or read (one line)."""


def _json(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, sort_keys=True) + "\n").encode()


@dataclass
class Folded:
    """The records as the SQLite cache holds them."""

    versions: list[dict[str, Any]]
    """Each version record with ``state`` (after its changes) and ``chosen``."""
    changes: list[dict[str, Any]]
    """Every change (a version's first state included), in the order of their times."""
    meta: dict[str, str]


class Records:
    """The ladder's records in ``store`` (the ladder's root, ``s3://BUCKET/PREFIX``)."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        self.bodies: dict[str, dict[str, Any]] = {}
        """Every record read so far, by key (records never change, so each is read once)."""

    def _read(self, key: str) -> dict[str, Any]:
        got = self.bodies.get(key)
        if got is None:
            try:
                data = json.loads(self.store.get(key))
            except FileNotFoundError:
                raise RecordError(f"{self.store.where(key)}: listed, then gone (records are never "
                                  "deleted)") from None
            except ValueError:
                raise RecordError(f"{self.store.where(key)}: not a ladder record (unreadable JSON)") from None
            if not isinstance(data, dict):
                raise RecordError(f"{self.store.where(key)}: not a ladder record (not a JSON object)")
            got = self.bodies[key] = data
        return got

    def refresh(self) -> None:
        """Read the records created since the last call (one listing of ``_ladder/``)."""
        for k in self.store.list(PREFIX):
            if k.endswith(".json") and k.startswith((VERSIONS + "/", CHANGES + "/", META + "/")):
                self._read(k)

    # ------------------------------------------------------------------ reading
    def fold(self) -> Folded:
        """The versions with their current states and the changes in order (the records read)."""
        versions: dict[str, dict[str, Any]] = {}
        events: list[tuple[str, str, int, dict[str, Any]]] = []
        meta: dict[str, str] = {}
        for k, body in self.bodies.items():
            if k.startswith(VERSIONS + "/"):
                versions[str(body["ref"])] = dict(body)
                events.append((str(body["submitted_at"]), str(body["ref"]), 0,
                               {"ref": body["ref"], "from": None, "to": body["state"],
                                "reason": body["reason"], "at": body["submitted_at"]}))
            elif k.startswith(CHANGES + "/"):
                events.append((str(body["at"]), str(body["ref"]), int(body["n"]), body))
            elif k.startswith(META + "/"):
                meta[k[len(META) + 1:-len(".json")]] = str(body["value"])
        by_ref: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for _, ref, n, body in events:
            by_ref.setdefault(ref, []).append((n, body))
        for ref, chain in by_ref.items():   # a version's state: its last change, by number
            v = versions.get(ref)
            if v is None:   # a change of a version whose record is not listed yet: left for later
                continue
            last = max(chain, key=lambda x: x[0])[1]
            v["state"] = last["to"]
            for _, body in sorted(chain, key=lambda x: x[0]):
                if body.get("games") is not None:
                    v["games"] = body["games"]
        for v in versions.values():
            v["chosen"] = False
        ordered = sorted((e for e in events if e[1] in versions), key=lambda e: (e[0], e[1], e[2]))
        for _, ref, _, body in ordered:   # an author's choice: the latest choice of theirs
            if body.get("chosen"):
                author = versions[ref]["author"]
                for v in versions.values():
                    if v["author"] == author:
                        v["chosen"] = v["ref"] == ref
        vs = sorted(versions.values(), key=lambda v: (v["submitted_at"], v["ref"]))
        return Folded(vs, [e[3] for e in ordered], meta)

    def code_hashes(self) -> dict[str, str]:
        """ref -> the code hash of its files (:meth:`bots.api.BotSource.code_hash`)."""
        return {str(b["ref"]): str(b.get("code_hash", "")) for k, b in self.bodies.items()
                if k.startswith(VERSIONS + "/")}

    def next_change(self, ref: str) -> int:
        return 1 + max((int(b["n"]) for k, b in self.bodies.items()
                        if k.startswith(f"{CHANGES}/{ref}/")), default=0)

    # ------------------------------------------------------------------ writing
    def create(self, key: str, body: dict[str, Any]) -> bool:
        """Create the record ``key`` unless it exists (then False, and it is read)."""
        if self.store.put_if_absent(key, _json(body)):
            self.bodies[key] = json.loads(_json(body))
            return True
        self._read(key)
        return False

    def put_code(self, h: str, files: list[tuple[str, bytes]]) -> None:
        """Store a version's files (``(relative key, bytes)``, the entry's name first in each) under its
        content hash, each created once."""
        for rel, data in files:
            self.store.put_if_absent(f"{CODE}/{h}/{rel}", data)

    def get_code(self, record: dict[str, Any], dest: Path) -> Path:
        """Copy a version's files into ``dest``; the path of its entry (a file or a folder)."""
        base = f"{CODE}/{record['hash']}/"
        keys = [k for k in self.store.list(base.rstrip("/")) if k.startswith(base)]
        if not keys:
            raise RecordError(f"{self.store.where(base)}: the files of {record['ref']} are missing")
        for k in keys:
            out = dest / k[len(base):]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(self.store.get(k))
        return dest / str(record["entry"])

    def change(self, ref: str, body: dict[str, Any]) -> dict[str, Any]:
        """Append a change of ``ref`` (``body`` without ``n``), the number after its last; the record."""
        for _ in range(CLAIM_TRIES):
            n = self.next_change(ref)
            rec = {**body, "ref": ref, "n": n}
            if self.create(f"{CHANGES}/{ref}/{n:06d}.json", rec):
                return rec
        raise RecordError(f"{self.store.where(CHANGES + '/' + ref)}: {CLAIM_TRIES} other changes of {ref} "
                          "were written at the same time; try again")


def code_of(root: Path, ref: str) -> BotCode:
    """Where a worker reads the files of the submitted version ``ref`` of the ladder whose local copy
    is ``root`` (:class:`RecordError` when its record was never read)."""
    records = attached(root)
    body = records.bodies.get(f"{VERSIONS}/{ref}.json") if records is not None else None
    if body is None:
        raise RecordError(f"no record of {ref} in the ladder's copy {root}")
    return BotCode(str(body["hash"]), str(body["entry"]), body.get("kind") == "package",
                   f"{CODE}/{body['hash']}")


def files_of(src: Any) -> list[tuple[str, bytes]]:
    """A bot's files as ``(key under its hash, bytes)``: ``ENTRY`` for a file bot, ``ENTRY/REL`` for a
    package."""
    if not src.package:
        return [(src.path.name, src.path.read_bytes())]
    return [(f"{src.path.name}/{rel}", p.read_bytes()) for rel, p in src.files()]


_ATTACHED: dict[Path, Records] = {}
"""The local copies of ladders in a store open in this process (their directory -> the records): a
:class:`~tournaments.ladder.state.LadderStore` of such a directory works on the records."""


def attached(root: Path) -> Records | None:
    return _ATTACHED.get(Path(root).resolve())


@contextmanager
def local_copy(store: ObjectStore, tournament: str | Sequence[str] | None, tables: list[str]
               ) -> Iterator[tuple[Path, Records, Mirror]]:
    """A temporary local copy of a ladder in ``store``: its spec, settlement, manifests and the
    ``tables`` of its log (the parts of ``tournament``, or of each of several: the ladder and its
    settlement), with the SQLite cache of its records.  Removed at the end."""
    from tournaments.paths import TOURNAMENTS, part_prefix

    names = [tournament] if isinstance(tournament, str) else list(tournament or [])
    prefixes = tuple(part_prefix(t) for t in names)

    def keep(k: str) -> bool:
        name = k.rsplit("/", 1)[-1]
        if k.startswith(PREFIX + "/"):
            return k in (SPEC, SETTLEMENT)
        if k.startswith(TOURNAMENTS + "/"):
            return ".lease-e" not in name and not name.endswith(".secret")   # never the secret
        return bool(prefixes) and name.startswith(prefixes)

    try:
        mirror = Mirror(store, [PREFIX, TOURNAMENTS, *tables], keep)
    except StoreError as e:
        raise RecordError(str(e)) from None
    key = mirror.dir.resolve()
    try:
        records = _ATTACHED[key] = Records(store)
        yield mirror.dir, records, mirror
    finally:
        _ATTACHED.pop(key, None)
        mirror.close()


def read_spec(store: ObjectStore) -> Any:
    """The spec of the ladder in ``store`` (:class:`RecordError` when there is none)."""
    from tournaments.ladder.spec import parse_ladder_spec
    from tournaments.spec import SpecError

    try:
        data = json.loads(store.get(SPEC))
    except FileNotFoundError:
        raise RecordError(f"no ladder in {store.uri.split('?', 1)[0]} (no {SPEC}); create one with "
                          "`cardarena ladder create SPEC --out URI`") from None
    except ValueError:
        raise RecordError(f"{store.where(SPEC)}: not a ladder spec (unreadable JSON)") from None
    try:
        return parse_ladder_spec(data["spec"])
    except (KeyError, TypeError, SpecError) as e:
        raise RecordError(f"{store.where(SPEC)}: not a ladder spec ({e})") from None


def clean_store_orphans(store: ObjectStore, tournament: str, before_epoch: int) -> list[str]:
    """Remove ``tournament``'s published moves/events parts and digest records of epochs before
    ``before_epoch`` that have no matches part (a publish interrupted before its commit record, the
    matches part, was copied): the store's counterpart of :func:`tournaments.ledger.clean_orphans`."""
    from tournaments.log import TABLES
    from tournaments.paths import DIGESTS, part_epoch, part_prefix

    prefix = part_prefix(tournament)
    committed = {k.split("/", 1)[1] for k in store.list("matches") if k.rsplit("/", 1)[-1].startswith(prefix)}
    doomed = []
    for t in [*TABLES[:-1], DIGESTS]:
        for k in store.list(t):
            rest = k.split("/", 1)[1]
            name = rest.rsplit("/", 1)[-1]
            if t == DIGESTS:
                rest, name = rest[:-len(".json")], name[:-len(".json")]
            e = part_epoch(name)
            if name.startswith(prefix) and rest not in committed and (e is None or e < before_epoch):
                doomed.append(k)
    for k in doomed:
        store.delete(k)
    return doomed

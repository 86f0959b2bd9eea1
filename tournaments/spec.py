"""The tournament spec: a TOML file (or CLI flags), validated with one-line errors naming the field.

```toml
name = "demo"                   # tournament id (default: the spec file's name without .toml)
seed = 7                        # every match id derives from it (the schedule, not the deals)
secret = "fresh"                # optional: "fresh" (default) or "seed" (deals derive from seed: tests)
matches_per_seating = 2         # boards: duplicate deals played by every seating in all rotations
max_deals = 2                   # optional: stop each match after this many deals (default: whole match)
output = "data/demo"            # optional (default: data/<name>); relative to the working directory
address = "10.0.0.5:6379"       # optional: an existing Ray cluster (default: embedded local Ray)
games = "all"                   # every game, at its default player count (or with every entrant, when
                                #   fewer); or a list: "hartenjagen", or a table with per-game settings:
# games = ["hartenjagen", { id = "genive", players = 4, max_deals = 3, options = { long_play = true } }]
bots = ["random", "greedy", "mybot", "mybot@2", { name = "random-2", bot = "random" },
        { name = "ismcts-50", bot = "ismcts", options = { iterations = 50 } }]

[limits]                        # per-move limits, as the bots sandbox enforces them
move_s = 1.0                    # deadline per move, seconds
bank_s = 5.0                    # time bank per match and seat, for moves over move_s
memory_mb = 1024                # memory cap of a sandboxed bot
sandbox_builtins = false        # run built-in bots in the sandbox too

[schedule]
mode = "full"                   # every combination of entrants; or "sampled" (see schedule.py)
seatings = 30                   # sampled: seating arrangements per game

[run]                           # how, not what: not part of the tournament's identity
batch_s = 1.0                   # target seconds of work per Ray task
num_cpus = 0                    # embedded Ray: CPUs to use (0: all)
```

Every number is finite and bounded, and a value out of range is refused at load with one line that
names the field and the accepted range: ``seed`` 0..2**63-1, ``matches_per_seating`` 1..100000,
``max_deals`` 1..10000, ``limits.move_s`` 0.001..600, ``limits.bank_s`` 0.001..86400,
``limits.memory_mb`` 16..65536, ``run.batch_s`` 0.01..3600, ``run.num_cpus`` 0..4096,
``schedule.seatings`` 1..1000000, at most 1000 entrants and 1,000,000 scheduled matches; ``nan`` and
``inf`` never pass.  The name (and ``--tournament-id``) is a safe slug: it names files under the output
directory and can never be a path.  The spec file must be a regular file of at most 1 MiB (a FIFO or
a device is refused, not waited on).

An entrant is a bot under a label.  A bare string is both (``"random"``, ``"mybot@2"``); a table
``{name, bot}`` enters the same bot twice under two labels, and ``options`` passes keyword arguments
to a built-in bot's constructor (``ismcts``: ``iterations``, ``time_limit``).  ``NAME`` is the latest
submitted version when the tournament starts; the manifest freezes that choice so a resumed run plays
the same bots.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine import GAMES, game_class, load_game

_URI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
"""An object store's URI (``s3://...``; :func:`tournaments.store.is_uri` without pyarrow)."""


class SpecError(ValueError):
    """A spec that cannot run.  The message is one line and starts with the field."""


def check_tournament_id(tid: Any, what: str = "name") -> str:
    """``tid`` if it is a safe tournament id (a file-name component under the output directory: no
    ``/``, no ``..`` or leading dot, no NUL, at most 64 characters), else :class:`SpecError` naming
    ``what``."""
    if not isinstance(tid, str) or not _ID.fullmatch(tid):
        raise SpecError(f"{what}: {_short(tid)} is not a valid tournament id ({ID_RULE})")
    return tid


def usable_path(path: str | os.PathLike[str]) -> bool:
    """Whether the system can take ``path`` at all: no NUL, at most :data:`MAX_PATH` characters and
    255 bytes per name (else ``open`` or ``stat`` raise instead of answering)."""
    text = os.fspath(path)
    return ("\0" not in text and len(text) <= MAX_PATH
            and all(len(part.encode("utf-8", "surrogateescape")) <= 255 for part in text.split("/")))


def check_path(path: str | os.PathLike[str], what: str) -> None:
    """:class:`SpecError` naming ``what`` unless :func:`usable_path`."""
    if not usable_path(path):
        raise SpecError(f"{what}: not a usable path (at most {MAX_PATH} characters and 255 per name, "
                        "no NUL)")


def _key(k: str) -> str:
    """A key as an error line shows it: as written when it is a plain name, else quoted."""
    return k if re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", k) else _short(k)


def _short(v: Any, n: int = 80) -> str:
    """``repr(v)`` cut to ``n`` characters: an error line stays one short line."""
    r = repr(v)
    return r if len(r) <= n else r[:n - 3] + "..."


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A tournament id or an entrant label (``fullmatch``): a safe file-name component, never a path."""
ID_RULE = "letters, digits, '.', '_', '-'; at most 64, starting with a letter or digit"
MAX_SPEC_BYTES = 1 << 20
"""A spec file larger than this is refused (a spec is a few hundred bytes)."""
MAX_PATH = 4096
_BOT = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*(@[0-9]{1,9})?")
_TOP = {"name", "seed", "secret", "matches_per_seating", "max_deals", "output", "address", "games", "bots",
        "limits", "schedule", "run"}
_GAME_KEYS = {"id", "options", "players", "max_deals"}
_LIMIT_KEYS = {"move_s", "bank_s", "memory_mb", "sandbox_builtins"}
_SCHEDULE_KEYS = {"mode", "seatings"}
_RUN_KEYS = {"batch_s", "num_cpus"}


@dataclass(frozen=True)
class GameEntry:
    id: str
    options: dict[str, Any]
    """The options as given (the full set, defaults included, is ``load_game(id, **options).options``)."""
    players: int
    max_deals: int | None


@dataclass(frozen=True)
class Entrant:
    label: str
    bot: str
    """A built-in name, ``NAME`` or ``NAME@VERSION``."""
    options: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of a built-in bot's constructor, e.g. ``{"iterations": 50}`` for ismcts."""


@dataclass(frozen=True)
class Limits:
    move_s: float = 1.0
    bank_s: float = 5.0
    memory_mb: int = 1024
    sandbox_builtins: bool = False


@dataclass(frozen=True)
class Spec:
    name: str
    seed: int
    games: tuple[GameEntry, ...]
    bots: tuple[Entrant, ...]
    matches_per_seating: int = 1
    max_deals: int | None = None
    """The default deal limit of every game (each :class:`GameEntry` holds its own)."""
    limits: Limits = field(default_factory=Limits)
    schedule: str = "full"
    seatings: int | None = None
    output: Path | str = Path("data")
    """A local directory, or an object store's URI (``s3://bucket/prefix``) kept as the string it is:
    :class:`pathlib.Path` would collapse its ``//``."""
    address: str | None = None
    batch_s: float = 1.0
    num_cpus: int = 0
    secret: str = "fresh"
    """``fresh``: a new random tournament secret; ``seed``: derived from :attr:`seed` (schedule.py)."""
    raw: dict[str, Any] = field(default_factory=dict, compare=False)
    """The spec as written (after CLI overrides): what :meth:`spec_hash` covers."""

    def identity(self) -> dict[str, Any]:
        """What decides the matches and their results (not where or how they run)."""
        return {
            "seed": self.seed, "matches_per_seating": self.matches_per_seating, "max_deals": self.max_deals,
            "games": "all" if self.raw.get("games", "all") == "all" else self.game_entries(),
            "bots": [{"name": e.label, "bot": e.bot, **({"options": e.options} if e.options else {})}
                     for e in self.bots],
            "limits": {"move_s": self.limits.move_s, "bank_s": self.limits.bank_s,
                       "memory_mb": self.limits.memory_mb,
                       "sandbox_builtins": self.limits.sandbox_builtins},
            "schedule": {"mode": self.schedule, "seatings": self.seatings},
            **({"secret": self.secret} if self.secret != "fresh" else {}),
        }

    def game_entries(self) -> list[dict[str, Any]]:
        return [{"id": g.id, "options": g.options, "players": g.players, "max_deals": g.max_deals}
                for g in self.games]

    def spec_hash(self) -> str:
        """Hash of :meth:`identity`: the spec as written (``games = "all"`` stays "all"; the games it
        meant when the tournament started are frozen in the manifest)."""
        blob = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def with_games(self, games: tuple[GameEntry, ...]) -> Spec:
        return replace(self, games=games)


# ------------------------------------------------------------------------------------------ parsing
def load_spec(path: str | Path, overrides: dict[str, Any] | None = None,
              known_bots: set[str] | None = None) -> Spec:
    """Read and validate a TOML spec; ``overrides`` (from CLI flags) replace top-level fields."""
    p = Path(path)
    text = _read_spec_file(p)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"spec file {str(path)!r} is not valid TOML: {e}") from None
    raw.setdefault("name", p.stem)
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse_spec(raw, known_bots=known_bots)


def _read_spec_file(p: Path) -> str:
    """The text of a spec file: a regular file of at most :data:`MAX_SPEC_BYTES`, UTF-8.  Opened
    without blocking, so a FIFO, a device or a socket is refused instead of waited on."""
    where = f"spec file {_short(str(p))}"
    check_path(p, where)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise SpecError(f"{where} not found") from None
    except OSError as e:
        raise SpecError(f"{where} cannot be read: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
            raise SpecError(f"{where} is {kind}, not a regular file")
        if st.st_size > MAX_SPEC_BYTES:
            raise SpecError(f"{where} is {st.st_size} bytes; a spec is at most {MAX_SPEC_BYTES}")
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_SPEC_BYTES:
            chunk = os.read(fd, MAX_SPEC_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as e:
        raise SpecError(f"{where} cannot be read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(f"{where} is over {MAX_SPEC_BYTES} bytes; a spec is at most that")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SpecError(f"{where} is not UTF-8 text ({e.reason} at byte {e.start})") from None


def parse_spec(raw: dict[str, Any], known_bots: set[str] | None = None) -> Spec:
    """Validate a spec given as a dict (TOML's shape); :class:`SpecError` names the bad field.

    ``known_bots``: names a bot may have besides the built-ins (the submitted bots); ``None`` accepts
    any well-formed name (checked when the bots are resolved).
    """
    unknown = sorted(set(raw) - _TOP)
    if unknown:
        raise SpecError(f"{_key(unknown[0])}: unknown field; the fields are {', '.join(sorted(_TOP))}")
    name = check_tournament_id(raw.get("name", "tournament"))
    seed = _int(raw, "seed", 0, lo=0, hi=MAX_SEED)
    secret = raw.get("secret", "fresh")
    if secret not in ("fresh", "seed"):
        raise SpecError(f"secret: expected \"fresh\" (a new random secret, the default) or \"seed\" "
                        f"(derived from the seed: predictable), got {_short(secret)}")
    mps = _int(raw, "matches_per_seating", 1, lo=1, hi=MAX_BOARDS)
    max_deals = _opt_int(raw, "max_deals", lo=1, hi=MAX_DEALS)
    bots = _bots(raw.get("bots"), known_bots)
    games = _games(raw.get("games", "all"), max_deals, len(bots))
    limits = _limits(raw.get("limits", {}))
    mode, seatings = _schedule(raw.get("schedule", {}))
    if limits.sandbox_builtins:
        for i, e in enumerate(bots):
            if e.options:
                raise SpecError(f"bots[{i}].options: a bot with options runs in-process; "
                                "limits.sandbox_builtins = true cannot pass them")
    run = raw.get("run", {})
    if not isinstance(run, dict):
        raise SpecError("run: expected a table like [run] batch_s = 1.0")
    bad = sorted(set(run) - _RUN_KEYS)
    if bad:
        raise SpecError(f"run.{_key(bad[0])}: unknown field; the fields are {', '.join(sorted(_RUN_KEYS))}")
    batch_s = _num(run, "batch_s", 1.0, "run.", lo=0.01, hi=3600.0)
    num_cpus = _int(run, "num_cpus", 0, lo=0, hi=4096, prefix="run.")
    output = raw.get("output", f"data/{name}")
    if not isinstance(output, str) or not output or not usable_path(output):
        raise SpecError(f"output: expected a directory path (at most {MAX_PATH} characters, no NUL), "
                        f"got {_short(output)}")
    address = raw.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip() or len(address) > 255
                                or not address.isprintable()):
        raise SpecError(f"address: expected a Ray address like 'HOST:6379' or 'auto', got {_short(address)}")
    for g in games:
        entering = len(bots)
        if entering < g.players:
            raise SpecError(f"{_where(raw, g)}: {g.id} seats {g.players} players but only {entering} "
                            f"bots are entered ({', '.join(e.label for e in bots)}); add bots (a bot may "
                            "enter again under another name: { name = \"x-2\", bot = \"x\" } in a spec, "
                            "x-2=x with --bots) or set players")
    _check_size(games, len(bots), mps, mode, seatings)
    return Spec(name=name, seed=seed, games=games, bots=bots, matches_per_seating=mps, max_deals=max_deals,
                limits=limits,
                schedule=mode, seatings=seatings, output=output if _URI.match(output) else Path(output),
                address=address or None,
                batch_s=batch_s, num_cpus=num_cpus, secret=secret, raw=raw)


MAX_ENTRANTS = 1_000
MAX_MATCHES = 1_000_000
"""Scheduled matches at most (counted as if every entrant entered every game): beyond, the schedule
alone would not fit in memory; a sampled schedule or fewer boards is the way."""


def _check_size(games: Sequence[GameEntry], entrants: int, boards: int, mode: str,
                seatings: int | None) -> None:
    """Refuse a tournament too large to schedule (before a single match id is built)."""
    if entrants > MAX_ENTRANTS:
        raise SpecError(f"bots: {entrants} entrants; at most {MAX_ENTRANTS}")
    total = 0
    for g in games:
        teams = game_class(g.id).teams
        full = math.comb(entrants, g.players) * (3 if teams else 1)
        tables = full if mode == "full" or seatings is None else min(full, seatings)
        total += tables * g.players * boards
        if total > MAX_MATCHES:
            raise SpecError(f"schedule: the tournament would play more than {MAX_MATCHES:,} matches "
                            f"({g.id} alone: {tables * g.players * boards:,}); use [schedule] mode = "
                            "\"sampled\" with fewer seatings, fewer entrants or fewer boards")


def _where(raw: dict[str, Any], g: GameEntry) -> str:
    gs = raw.get("games", "all")
    if isinstance(gs, list):
        for i, x in enumerate(gs):
            if x == g.id or (isinstance(x, dict) and x.get("id") == g.id):
                return f"games[{i}] ({g.id})"
    return f"games ({g.id})"


MAX_SEED = 2**63 - 1
MAX_BOARDS = 100_000
"""``matches_per_seating`` at most (boards per seating)."""
MAX_DEALS = 10_000
"""``max_deals`` at most (a whole match of any game is far shorter)."""
MAX_SEATINGS = 1_000_000


def _int(d: dict[str, Any], key: str, default: int, lo: int, hi: int, prefix: str = "") -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecError(f"{prefix}{key}: expected an integer in {lo}..{hi}, got {_short(v)}")
    if not lo <= v <= hi:
        raise SpecError(f"{prefix}{key}: {_short(v)} is out of range {lo}..{hi}")
    return v


def _opt_int(d: dict[str, Any], key: str, lo: int, hi: int, prefix: str = "") -> int | None:
    if d.get(key) is None:
        return None
    return _int(d, key, lo, lo=lo, hi=hi, prefix=prefix)


def _num(d: dict[str, Any], key: str, default: float, prefix: str, lo: float, hi: float) -> float:
    """A finite number in ``lo..hi`` (TOML's ``nan`` and ``inf`` are refused)."""
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SpecError(f"{prefix}{key}: expected a number in {lo:g}..{hi:g}, got {_short(v)}")
    if not math.isfinite(v) or not lo <= v <= hi:
        raise SpecError(f"{prefix}{key}: {_short(v)} is out of range {lo:g}..{hi:g} (a finite number)")
    return float(v)


def _games(value: Any, max_deals: int | None, entrants: int) -> tuple[GameEntry, ...]:
    if value == "all":
        if not GAMES:
            raise SpecError("games: 'all' but no game is registered")
        every = []
        for g in GAMES:  # each at its default player count, or with every entrant when there are fewer
            cls = game_class(g)
            n = cls.default_players
            if entrants < n and cls.min_players <= entrants and not cls.teams:
                n = entrants
            every.append(_game_entry(g, {}, n, max_deals, f"games ({g})"))
        return tuple(every)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise SpecError(f"games: expected \"all\" or a non-empty list of game ids, got {_short(value)}")
    out: list[GameEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        where = f"games[{i}]"
        if isinstance(item, str):
            entry = _game_entry(item, {}, None, max_deals, where)
        elif isinstance(item, dict):
            bad = sorted(set(item) - _GAME_KEYS)
            if bad:
                raise SpecError(f"{where}.{_key(bad[0])}: unknown field; a game has "
                                f"{', '.join(sorted(_GAME_KEYS))}")
            gid = item.get("id")
            if not isinstance(gid, str):
                raise SpecError(f"{where}.id: expected a game id, one of {', '.join(GAMES)}")
            opts = item.get("options", {})
            if not isinstance(opts, dict):
                raise SpecError(f"{where}.options: expected a table like {{ target = 50 }}, "
                                f"got {_short(opts)}")
            players = item.get("players")
            md = (_opt_int(item, "max_deals", lo=1, hi=MAX_DEALS, prefix=f"{where}.") if "max_deals" in item
                  else max_deals)
            entry = _game_entry(gid, opts, players, md, where)
        else:
            raise SpecError(f"{where}: expected a game id or a table {{ id = ..., options = {{...}} }}, "
                            f"got {_short(item)}")
        if entry.id in seen:
            raise SpecError(f"{where}: game {entry.id} is listed twice")
        seen.add(entry.id)
        out.append(entry)
    return tuple(out)


def _game_entry(gid: str, options: dict[str, Any], players: Any, max_deals: int | None,
                where: str) -> GameEntry:
    if gid not in GAMES:
        raise SpecError(f"{where}: unknown game {_short(gid)}; known games: {', '.join(GAMES)}")
    try:
        load_game(gid, **options)
    except ValueError as e:
        raise SpecError(f"{where}.options: {e}") from None
    try:
        n = game_class(gid)(**options).check_players(players)  # the game's own check, the one new_match makes
    except ValueError as e:
        raise SpecError(f"{where}.players: {e}") from None
    return GameEntry(gid, dict(options), n, max_deals)


def _bots(value: Any, known: set[str] | None) -> tuple[Entrant, ...]:
    from bots.api import BUILTIN

    if value is None:
        raise SpecError(f"bots: missing; list the entrants, e.g. bots = [{', '.join(map(repr, BUILTIN))}]")
    if isinstance(value, str):
        value = [b.strip() for b in value.split(",") if b.strip()]
    if not isinstance(value, list) or not value:
        raise SpecError(f"bots: expected a non-empty list of bot names, got {_short(value)}")
    out: list[Entrant] = []
    labels: set[str] = set()
    for i, item in enumerate(value):
        where = f"bots[{i}]"
        options: dict[str, Any] = {}
        label: Any
        bot: Any
        if isinstance(item, str):
            label, bot = item, item
        elif isinstance(item, dict):
            bad = sorted(set(item) - {"name", "bot", "options"})
            if bad:
                raise SpecError(f"{where}.{_key(bad[0])}: unknown field; an entrant has name, bot and "
                                "options")
            label, bot = item.get("name"), item.get("bot")
            options = item.get("options", {})
            if not isinstance(options, dict):
                raise SpecError(f"{where}.options: expected a table like {{ iterations = 50 }}, "
                                f"got {_short(options)}")
            if not isinstance(label, str) or not _ID.fullmatch(label):
                raise SpecError(f"{where}.name: expected a label ({ID_RULE}), got {_short(label)}")
            if not isinstance(bot, str):
                raise SpecError(f"{where}.bot: expected a bot name, got {_short(bot)}")
        else:
            raise SpecError(f"{where}: expected a bot name or {{ name = ..., bot = ... }}, "
                            f"got {_short(item)}")
        if len(bot) > 64 or not _BOT.fullmatch(bot):
            raise SpecError(f"{where}: {_short(bot)} is not a bot name: a built-in "
                            f"({', '.join(BUILTIN)}) or a submitted NAME or NAME@VERSION")
        base = bot.split("@", 1)[0]
        if base not in BUILTIN and known is not None and base not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise SpecError(f"{where}: unknown bot {bot!r}; built-in bots: {', '.join(BUILTIN)}; "
                            f"submitted bots: {listed}")
        if base in BUILTIN and "@" in bot:
            raise SpecError(f"{where}: built-in bot {base!r} has no versions; write {base!r}")
        if label in labels:
            raise SpecError(f"{where}: entrant {label!r} is listed twice; enter a bot again under another "
                            f"name: {{ name = \"{label}-2\", bot = \"{bot}\" }}")
        if options:
            _check_bot_options(where, bot, options, BUILTIN)
        labels.add(label)
        out.append(Entrant(label, bot, options))
    return tuple(out)


def _check_bot_options(where: str, bot: str, options: dict[str, Any], builtin: Sequence[str]) -> None:
    """Options are keyword arguments of a built-in bot's constructor, each declared with its type and
    range in the bot module's ``OPTIONS`` (``bots.builtin._common.BotOption``): checked here, at spec
    load, so a bad one is one line instead of an entrant that crashes in every match."""
    if bot not in builtin:
        raise SpecError(f"{where}.options: only built-in bots take options; {bot!r} is not one")
    import importlib

    from bots.builtin._common import check_options

    declared = importlib.import_module(f"bots.builtin.{bot}").OPTIONS
    try:
        check_options(bot, declared, options)
    except ValueError as e:
        raise SpecError(f"{where}.options.{e}") from None


MAX_MOVE_S = 600.0
"""``limits.move_s`` at most: ten minutes per move."""
MAX_BANK_S = 86_400.0
"""``limits.bank_s`` at most: a day of thinking per match and seat."""
MAX_MEMORY_MB = 1 << 16
"""``limits.memory_mb`` at most: 64 GiB per bot."""


def _limits(value: Any) -> Limits:
    if not isinstance(value, dict):
        raise SpecError("limits: expected a table like [limits] move_s = 1.0")
    bad = sorted(set(value) - _LIMIT_KEYS)
    if bad:
        raise SpecError(f"limits.{_key(bad[0])}: unknown field; the fields are "
                        f"{', '.join(sorted(_LIMIT_KEYS))}")
    d = Limits()
    sb = value.get("sandbox_builtins", d.sandbox_builtins)
    if not isinstance(sb, bool):
        raise SpecError(f"limits.sandbox_builtins: expected true or false, got {_short(sb)}")
    return Limits(move_s=_num(value, "move_s", d.move_s, "limits.", lo=0.001, hi=MAX_MOVE_S),
                  bank_s=_num(value, "bank_s", d.bank_s, "limits.", lo=0.001, hi=MAX_BANK_S),
                  memory_mb=_int(value, "memory_mb", d.memory_mb, lo=16, hi=MAX_MEMORY_MB, prefix="limits."),
                  sandbox_builtins=sb)


def _schedule(value: Any) -> tuple[str, int | None]:
    if not isinstance(value, dict):
        raise SpecError("schedule: expected a table like [schedule] mode = \"sampled\"")
    bad = sorted(set(value) - _SCHEDULE_KEYS)
    if bad:
        raise SpecError(f"schedule.{_key(bad[0])}: unknown field; the fields are mode, seatings")
    mode = value.get("mode", "full")
    if mode not in ("full", "sampled"):
        raise SpecError(f"schedule.mode: expected \"full\" or \"sampled\", got {_short(mode)}")
    if mode == "full":
        if "seatings" in value:
            raise SpecError("schedule.seatings: only for mode = \"sampled\"")
        return mode, None
    if "seatings" not in value:
        raise SpecError("schedule.seatings: mode = \"sampled\" needs the number of seatings per game")
    return mode, _int(value, "seatings", 1, lo=1, hi=MAX_SEATINGS, prefix="schedule.")

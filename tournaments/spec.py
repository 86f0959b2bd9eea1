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

An entrant is a bot under a label.  A bare string is both (``"random"``, ``"mybot@2"``); a table
``{name, bot}`` enters the same bot twice under two labels, and ``options`` passes keyword arguments
to a built-in bot's constructor (``ismcts``: ``iterations``, ``time_limit``).  ``NAME`` is the latest
submitted version when the tournament starts; the manifest freezes that choice so a resumed run plays
the same bots.
"""
from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from engine import GAMES, game_class, load_game


class SpecError(ValueError):
    """A spec that cannot run.  The message is one line and starts with the field."""


_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_BOT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*(@[0-9]+)?$")
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
    output: Path = Path("data")
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
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise SpecError(f"spec file {str(path)!r} not found") from None
    except (OSError, UnicodeDecodeError) as e:  # a folder, a path under a file, permissions
        raise SpecError(f"spec file {str(path)!r} cannot be read: {getattr(e, 'strerror', None) or e}"
                        ) from None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"spec file {str(path)!r} is not valid TOML: {e}") from None
    raw.setdefault("name", p.stem)
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse_spec(raw, known_bots=known_bots)


def parse_spec(raw: dict[str, Any], known_bots: set[str] | None = None) -> Spec:
    """Validate a spec given as a dict (TOML's shape); :class:`SpecError` names the bad field.

    ``known_bots``: names a bot may have besides the built-ins (the submitted bots); ``None`` accepts
    any well-formed name (checked when the bots are resolved).
    """
    unknown = sorted(set(raw) - _TOP)
    if unknown:
        raise SpecError(f"{unknown[0]}: unknown field; the fields are {', '.join(sorted(_TOP))}")
    name = raw.get("name", "tournament")
    if not isinstance(name, str) or not _ID.match(name):
        raise SpecError(f"name: {name!r} is not a valid tournament id (letters, digits, '.', '_', '-'; "
                        "at most 64, starting with a letter or digit)")
    seed = _int(raw, "seed", 0, lo=0, hi=2**63 - 1)
    secret = raw.get("secret", "fresh")
    if secret not in ("fresh", "seed"):
        raise SpecError(f"secret: expected \"fresh\" (a new random secret, the default) or \"seed\" "
                        f"(derived from the seed: predictable), got {secret!r}")
    mps = _int(raw, "matches_per_seating", 1, lo=1, hi=1_000_000)
    max_deals = _opt_int(raw, "max_deals", lo=1)
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
        raise SpecError(f"run.{bad[0]}: unknown field; the fields are {', '.join(sorted(_RUN_KEYS))}")
    batch_s = _num(run, "batch_s", 1.0, "run.", lo=0.01)
    num_cpus = _int(run, "num_cpus", 0, lo=0, hi=4096, prefix="run.")
    output = raw.get("output", f"data/{name}")
    if not isinstance(output, str) or not output:
        raise SpecError(f"output: expected a directory path, got {output!r}")
    address = raw.get("address")
    if address is not None and (not isinstance(address, str) or not address.strip()):
        raise SpecError(f"address: expected a Ray address like 'HOST:6379' or 'auto', got {address!r}")
    for g in games:
        entering = len(bots)
        if entering < g.players:
            raise SpecError(f"{_where(raw, g)}: {g.id} seats {g.players} players but only {entering} "
                            f"bots are entered ({', '.join(e.label for e in bots)}); add bots (a bot may "
                            "enter again under another name: { name = \"x-2\", bot = \"x\" } in a spec, "
                            "x-2=x with --bots) or set players")
    return Spec(name=name, seed=seed, games=games, bots=bots, matches_per_seating=mps, max_deals=max_deals,
                limits=limits,
                schedule=mode, seatings=seatings, output=Path(output), address=address or None,
                batch_s=batch_s, num_cpus=num_cpus, secret=secret, raw=raw)


def _where(raw: dict[str, Any], g: GameEntry) -> str:
    gs = raw.get("games", "all")
    if isinstance(gs, list):
        for i, x in enumerate(gs):
            if x == g.id or (isinstance(x, dict) and x.get("id") == g.id):
                return f"games[{i}] ({g.id})"
    return f"games ({g.id})"


def _int(d: dict[str, Any], key: str, default: int, lo: int, hi: int, prefix: str = "") -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecError(f"{prefix}{key}: expected an integer, got {v!r}")
    if not lo <= v <= hi:
        raise SpecError(f"{prefix}{key}: {v} is out of range {lo}..{hi}")
    return v


def _opt_int(d: dict[str, Any], key: str, lo: int, prefix: str = "") -> int | None:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise SpecError(f"{prefix}{key}: expected an integer of at least {lo}, got {v!r}")
    return v


def _num(d: dict[str, Any], key: str, default: float, prefix: str, lo: float) -> float:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < lo:
        raise SpecError(f"{prefix}{key}: expected a number of at least {lo}, got {v!r}")
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
        raise SpecError(f"games: expected \"all\" or a non-empty list of game ids, got {value!r}")
    out: list[GameEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(value):
        where = f"games[{i}]"
        if isinstance(item, str):
            entry = _game_entry(item, {}, None, max_deals, where)
        elif isinstance(item, dict):
            bad = sorted(set(item) - _GAME_KEYS)
            if bad:
                raise SpecError(f"{where}.{bad[0]}: unknown field; a game has "
                                f"{', '.join(sorted(_GAME_KEYS))}")
            gid = item.get("id")
            if not isinstance(gid, str):
                raise SpecError(f"{where}.id: expected a game id, one of {', '.join(GAMES)}")
            opts = item.get("options", {})
            if not isinstance(opts, dict):
                raise SpecError(f"{where}.options: expected a table like {{ target = 50 }}, got {opts!r}")
            players = item.get("players")
            md = _opt_int(item, "max_deals", lo=1, prefix=f"{where}.") if "max_deals" in item else max_deals
            entry = _game_entry(gid, opts, players, md, where)
        else:
            raise SpecError(f"{where}: expected a game id or a table {{ id = ..., options = {{...}} }}, "
                            f"got {item!r}")
        if entry.id in seen:
            raise SpecError(f"{where}: game {entry.id} is listed twice")
        seen.add(entry.id)
        out.append(entry)
    return tuple(out)


def _game_entry(gid: str, options: dict[str, Any], players: Any, max_deals: int | None,
                where: str) -> GameEntry:
    if gid not in GAMES:
        raise SpecError(f"{where}: unknown game {gid!r}; known games: {', '.join(GAMES)}")
    try:
        load_game(gid, **options)
    except ValueError as e:
        raise SpecError(f"{where}.options: {e}") from None
    cls = game_class(gid)
    n = cls.default_players if players is None else players
    if isinstance(n, bool) or not isinstance(n, int) or not cls.min_players <= n <= cls.max_players:
        seats = (str(cls.min_players) if cls.min_players == cls.max_players
                 else f"{cls.min_players} to {cls.max_players}")
        raise SpecError(f"{where}.players: {gid} takes {seats} players, got {players!r}")
    if cls.teams and n != 4:
        raise SpecError(f"{where}.players: {gid} is a partnership game for 4 players")
    return GameEntry(gid, dict(options), n, max_deals)


def _bots(value: Any, known: set[str] | None) -> tuple[Entrant, ...]:
    from bots.api import BUILTIN

    if value is None:
        raise SpecError(f"bots: missing; list the entrants, e.g. bots = [{', '.join(map(repr, BUILTIN))}]")
    if isinstance(value, str):
        value = [b.strip() for b in value.split(",") if b.strip()]
    if not isinstance(value, list) or not value:
        raise SpecError(f"bots: expected a non-empty list of bot names, got {value!r}")
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
                raise SpecError(f"{where}.{bad[0]}: unknown field; an entrant has name, bot and options")
            label, bot = item.get("name"), item.get("bot")
            options = item.get("options", {})
            if not isinstance(options, dict):
                raise SpecError(f"{where}.options: expected a table like {{ iterations = 50 }}, "
                                f"got {options!r}")
            if not isinstance(label, str) or not _ID.match(label):
                raise SpecError(f"{where}.name: expected a label (letters, digits, '.', '_', '-'), "
                                f"got {label!r}")
            if not isinstance(bot, str):
                raise SpecError(f"{where}.bot: expected a bot name, got {bot!r}")
        else:
            raise SpecError(f"{where}: expected a bot name or {{ name = ..., bot = ... }}, got {item!r}")
        if not _BOT.match(bot):
            raise SpecError(f"{where}: {bot!r} is not a bot name: a built-in ({', '.join(BUILTIN)}) or a "
                            "submitted NAME or NAME@VERSION")
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
    """Options are keyword arguments of a built-in bot's constructor (``Bot(game, seat, seed, ...)``)."""
    if bot not in builtin:
        raise SpecError(f"{where}.options: only built-in bots take options; {bot!r} is not one")
    import importlib
    import inspect

    params = inspect.signature(importlib.import_module(f"bots.builtin.{bot}").Bot).parameters
    accepted = [n for n, p in params.items() if n not in ("game", "seat", "seed")
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for k, v in options.items():
        if k not in accepted:
            raise SpecError(f"{where}.options.{k}: {bot} accepts {', '.join(accepted) or 'no options'}")
        if not isinstance(v, (int, float, str, bool)):
            raise SpecError(f"{where}.options.{k}: expected a number, string or boolean, got {v!r}")


def _limits(value: Any) -> Limits:
    if not isinstance(value, dict):
        raise SpecError("limits: expected a table like [limits] move_s = 1.0")
    bad = sorted(set(value) - _LIMIT_KEYS)
    if bad:
        raise SpecError(f"limits.{bad[0]}: unknown field; the fields are {', '.join(sorted(_LIMIT_KEYS))}")
    d = Limits()
    sb = value.get("sandbox_builtins", d.sandbox_builtins)
    if not isinstance(sb, bool):
        raise SpecError(f"limits.sandbox_builtins: expected true or false, got {sb!r}")
    return Limits(move_s=_num(value, "move_s", d.move_s, "limits.", lo=0.001),
                  bank_s=_num(value, "bank_s", d.bank_s, "limits.", lo=0.001),
                  memory_mb=_int(value, "memory_mb", d.memory_mb, lo=16, hi=1 << 20, prefix="limits."),
                  sandbox_builtins=sb)


def _schedule(value: Any) -> tuple[str, int | None]:
    if not isinstance(value, dict):
        raise SpecError("schedule: expected a table like [schedule] mode = \"sampled\"")
    bad = sorted(set(value) - _SCHEDULE_KEYS)
    if bad:
        raise SpecError(f"schedule.{bad[0]}: unknown field; the fields are mode, seatings")
    mode = value.get("mode", "full")
    if mode not in ("full", "sampled"):
        raise SpecError(f"schedule.mode: expected \"full\" or \"sampled\", got {mode!r}")
    if mode == "full":
        if "seatings" in value:
            raise SpecError("schedule.seatings: only for mode = \"sampled\"")
        return mode, None
    if "seatings" not in value:
        raise SpecError("schedule.seatings: mode = \"sampled\" needs the number of seatings per game")
    return mode, _int(value, "seatings", 1, lo=1, hi=10_000_000, prefix="schedule.")

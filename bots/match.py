"""Play one match between players, containing every bot fault.

Each seat's player sees only its own observations.  A player that faults (``timeout``, ``crash``,
``illegal`` or ``memory``, see :mod:`bots.sandbox`) forfeits: the fault is kept with its reason
and a traceback excerpt, a seeded random player plays that seat's remaining moves so that the
other seats' match completes and counts, and the faulting seat is placed last
(:attr:`MatchResult.placement`).

Players are named by :func:`make_players`: a built-in (``random``, ``greedy``, ``ismcts``; in this
process unless ``sandbox=True``), a bot file or folder, or a submitted bot ``NAME`` / ``NAME@VERSION``
(always sandboxed).
"""
from __future__ import annotations

import functools
import hashlib
import random
import re
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter, perf_counter_ns
from typing import Any

from bots.api import BUILTIN, BotSource, Player, bot_source, builtin_player, looks_like_path
from bots.builtin.random import Bot as RandomBot
from bots.faults import BotFault, Fault
from bots.records import MoveColumns, MoveRecord
from bots.sandbox import DEFAULT_LIMITS, Limits, SandboxPlayer, start_players
from bots.text import clean_lines, clean_text
from engine import IllegalAction, State, load_game
from engine.core import Game


@dataclass
class MatchResult:
    game: str
    seed: int
    state: State
    moves: list[tuple[int, str]] = field(default_factory=list)
    """(seat, action) for every action, in order."""
    outcomes: list[str] = field(default_factory=list)
    """Per seat: ``ok``, or the outcome of its fault."""
    faults: list[Fault] = field(default_factory=list)
    placement: list[int] = field(default_factory=list)
    """Final place per seat (1 best): the engine's ranking among the seats that did not fault,
    every faulting seat tied last."""
    fallback_moves: list[int] = field(default_factory=list)
    """Per seat: moves played by the random fallback after a fault."""
    think_time: list[float] = field(default_factory=list)
    """Per seat: seconds spent in the player's ``act`` (wall clock)."""
    error: str | None = None
    """An engine error that ended the match (with ``contain_errors``), and a traceback excerpt."""
    seconds: float = 0.0
    """Wall time of the whole match."""

    @property
    def ok(self) -> bool:
        return not self.faults


SEED_BITS = 63
"""Every seed is a non-negative 63-bit integer (it fits an int64 column)."""


def derive_seed(secret: bytes, *parts: object) -> int:
    """A 63-bit seed: HMAC-SHA256 of ``secret`` with ``parts`` (joined by ``|``).

    Without ``secret`` the result cannot be computed, and from results for some ``parts`` neither
    ``secret`` nor the result for other ``parts`` can be: what makes a bot's own seed (which the bot
    receives) useless for guessing the deal seed, and one deal useless for guessing another.
    """
    return derive_seeds(secret, parts[:-1], parts[-1:] or ("",))[0]


def derive_seeds(secret: bytes, prefix: Sequence[object], lasts: Iterable[object]) -> list[int]:
    """``[derive_seed(secret, *prefix, last) for last in lasts]``, the prefix hashed once: HMAC-SHA256
    (RFC 2104) from the inner and outer hash states keyed by ``secret``, made once per secret and
    copied per seed (a match's seat seeds: about a third of ``hmac.digest``'s cost each)."""
    inner, outer = _keyed(secret)
    head = inner.copy()
    if prefix:
        head.update(("|".join(map(str, prefix)) + "|").encode())
    out = []
    for last in lasts:
        h = head.copy()
        h.update(str(last).encode())
        o = outer.copy()
        o.update(h.digest())
        out.append(_seed(o.digest()))
    return out


def _seed(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


@functools.lru_cache(maxsize=16)
def _keyed(secret: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256's inner and outer SHA-256 states keyed by ``secret`` (RFC 2104: a key longer than
    the 64-byte block is hashed first, a shorter one padded with zeros)."""
    key = hashlib.sha256(secret).digest() if len(secret) > 64 else secret
    key = key.ljust(64, b"\0")
    return hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))


def seat_seed(seed: int, seat: int) -> int:
    """A seat's own seed in a match dealt from ``seed`` (``cardarena play``, ``bots validate``):
    HMAC of the match seed with the seat, so it reveals nothing of ``seed`` that is not already
    guessable (a small ``seed`` chosen by the user stays small).  Tournaments seed bots from their
    secret instead (``tournaments.schedule``)."""
    return derive_seed(b"cardarena seat seed", seed, seat)


def seat_seeds(seed: int, players: int) -> list[int]:
    """:func:`seat_seed` of every seat."""
    return [seat_seed(seed, s) for s in range(players)]


def placement(ranking: Sequence[int], outcomes: Sequence[str], teams: bool = False) -> list[int]:
    """Places with every faulting seat forfeiting: the others keep their order among themselves.  In a
    partnership game (``teams``: seats 0 and 2 against 1 and 3) the side is the unit: a fault by
    either partner places both partners last, together.

    >>> placement([1, 2, 3, 4], ["crash", "ok", "ok", "ok"])
    [4, 1, 2, 3]
    >>> placement([2, 2, 1, 4], ["ok", "timeout", "ok", "illegal"])
    [2, 3, 1, 3]
    >>> placement([1, 2, 1, 2], ["illegal", "ok", "ok", "ok"], teams=True)
    [3, 1, 3, 1]
    """
    n = len(ranking)
    unit = [s % 2 if teams else s for s in range(n)]
    faulted = {unit[s] for s, o in enumerate(outcomes) if o != "ok"}
    ok = [s for s in range(n) if unit[s] not in faulted]
    last = len(ok) + 1
    return [1 + sum(1 for t in ok if ranking[t] < ranking[s]) if unit[s] not in faulted else last
            for s in range(n)]


# --------------------------------------------------------------------------- the loop
WORLDS_SALT = 0x1D15EA5E
"""A seat's determinized worlds come from ``Random(own ^ WORLDS_SALT)``, ``own`` the seat's own seed."""
FALLBACK_SALT = 0xFA11BAC
"""A faulting seat's fallback player is seeded ``own ^ FALLBACK_SALT``, ``own`` the seat's own seed."""


MATCH_OBSERVATION: dict[str, str] = {
    "options": "the rule variant: every option of the game with its value in this match, defaults "
               "included (dict; `cardarena rules GAME` says what each means), like Kaggle's `configuration`",
    "clock": "your time: `move_s` the per-move limit, `bank_s` the time bank left for this match (a move "
             "slower than `move_s` draws the excess from it; once spent, a slow move faults), `match_s` "
             "the thinking time left in the match where the tournament caps it, else null; "
             "seconds, as the move is sent (like Kaggle's `remainingOverageTime`).  A trusted in-process "
             "player is not timed: every value is null",
}
"""The keys the match loop adds to every observation a player receives (:func:`play_match`)."""

UNTIMED: dict[str, float | None] = {"move_s": None, "bank_s": None, "match_s": None}
"""The ``clock`` of a player that is not timed (a trusted built-in in this process)."""


def player_clock(player: Any) -> dict[str, float | None]:
    """The ``clock`` observation key for ``player``: its own ``clock()`` (a sandboxed player's
    deadline and bank), else :data:`UNTIMED`."""
    clock = getattr(player, "clock", None)
    return clock() if callable(clock) else dict(UNTIMED)


def play_match(game: Game, players: Sequence[Player], seed: int, max_deals: int | None = None,
               deal: dict[str, Any] | None = None, *, on_move: Callable[[MoveRecord], None] | None = None,
               contain_errors: bool = False, seeds: Sequence[int] | None = None,
               on_fault: Callable[[Fault, dict[str, Any]], None] | None = None,
               log: MoveColumns | None = None) -> MatchResult:
    """Play a whole match; each player sees only its own observations; faults are contained.

    ``seeds``: the seats' own seeds (what their players were made with; default
    :func:`seat_seeds` of ``seed``): a searching player's worlds and a faulting seat's fallback
    player derive from them, never from the deal's ``seed``.

    Every observation a player receives has the match's keys (:data:`MATCH_OBSERVATION`): the
    game's ``options`` and the player's ``clock``.

    ``on_move`` gets a :class:`MoveRecord` after every action; ``log``, a fresh :class:`MoveColumns`,
    gets the same fields column by column, without a record per move (the tournament's log); ``on_fault``
    gets each :class:`Fault` with the observation the faulting player was given (``bots replay``
    writes it to a file).  With
    ``contain_errors`` an exception of the engine itself (a bug) ends the match with
    :attr:`MatchResult.error` set and every seat placed last, instead of propagating.
    """
    t_match = perf_counter()
    state = game.new_match(seed=seed, players=len(players), max_deals=max_deals, deal=deal)
    n = len(players)
    active: list[Any] = list(players)
    want = [int(getattr(p, "worlds", 0) or 0) for p in players]
    own_seeds = list(seeds) if seeds is not None else seat_seeds(seed, n)
    if len(own_seeds) != n:
        raise ValueError(f"seeds: {len(own_seeds)} seeds for {n} players")
    world_rng = [random.Random(own_seeds[s] ^ WORLDS_SALT) for s in range(n)]
    result = MatchResult(game.id, seed, state, outcomes=["ok"] * n, fallback_moves=[0] * n,
                         think_time=[0.0] * n)
    moves = result.moves
    think = result.think_time
    history = state.history
    clock = perf_counter_ns
    own = [0] * n
    fallen = [False] * n
    options = game.options
    deal_no, phase, legal = 0, "", 0
    logged = on_move is not None or log is not None
    if log is not None:   # the log's columns: three appends a move, and runs of (deal, phase, status)
        if len(log.seat):
            raise ValueError("log: a MoveColumns holds one match's moves; give each match a fresh one")
        log_seat, log_legal, log_think = log.seat.append, log.legal_count.append, log.think_us.append
    run_deal, run_phase, run_status = -1, "", ""
    try:
        while not state.is_over():
            seat = state.current_player
            assert seat is not None
            player = active[seat]
            obs = state.observation(seat)
            obs["options"] = dict(options)
            obs["clock"] = player_clock(player)
            own[seat] += 1
            if logged:
                deal_no, phase, legal = state.deal_no, state.phase, len(obs["legal_actions"])
            t = clock()
            dt = 0
            if fallen[seat]:
                status = "fallback"
            else:   # the seat's own player: its action, applied; or its fault
                action, fault, dt = _own_move(state, player, obs, seat, own[seat], want, world_rng[seat])
                think[seat] += dt / 1e9
                status = "ok"
                if fault is not None:   # the seat forfeits; a seeded random player finishes its moves
                    result.faults.append(fault)
                    if on_fault is not None:
                        on_fault(fault, obs)
                    result.outcomes[seat] = status = fault.outcome
                    _close(player)
                    active[seat] = RandomBot(game.id, seat, own_seeds[seat] ^ FALLBACK_SALT)
                    fallen[seat] = True
            if fallen[seat]:   # the fallback plays this move
                action = active[seat].act(obs)
                state.apply(action)
                result.fallback_moves[seat] += 1
                if status == "fallback":   # (on the move it faulted, the faulting player's time counts)
                    dt = clock() - t
            # the record step, once per action: (seat, action), and the log's row
            moves.append((seat, action))
            if log is not None:
                log_seat(seat)
                log_legal(legal)
                log_think(dt // 1000)
                if deal_no != run_deal or phase != run_phase or status != run_status:
                    run_deal, run_phase, run_status = deal_no, phase, status
                    log.run_start.append(len(moves) - 1)
                    log.run_deal.append(deal_no)
                    log.run_phase.append(phase)
                    log.run_status.append(status)
            if on_move is not None:
                on_move(_record(MoveRecord, (deal_no, len(history) - 1, seat, phase, history[-1], legal,
                                             dt // 1000, status)))
    except Exception as e:  # the engine failed (a bug)
        if not contain_errors:
            raise
        result.error = f"{type(e).__name__}: {e}\n{_excerpt(e)}"
    finally:
        for seat, p in enumerate(active):   # the fallbacks this loop made
            if p is not players[seat]:
                _close(p)
    if log is not None:   # the actions, canonical, from the history (one per logged move)
        try:
            log.finish(state.history)
        except ValueError as e:
            if not contain_errors:
                raise
            log.clear()
            result.error = result.error or f"{type(e).__name__}: {e}"
    result.placement = (placement(state.ranking(), result.outcomes, bool(game.teams))
                        if result.error is None else [n] * n)
    result.seconds = perf_counter() - t_match
    return result


_MoveFields = tuple[int, int, int, str, str, int, int, str]
_record: Callable[[type[MoveRecord], _MoveFields], MoveRecord] = tuple.__new__
"""A :class:`MoveRecord` from its fields, made without the named tuple's Python ``__new__`` (the same
object at a third of the cost; one per logged move)."""


def _own_move(state: State, player: Any, obs: dict[str, Any], seat: int, move: int, want: list[int],
              rng: random.Random) -> tuple[Any, Fault | None, int]:
    """The seat's own player moves: (its action, applied to ``state``, and None; or the :class:`Fault`
    it made, a sandbox fault, an in-process player's exception or an illegal action, with ``state``
    untouched; the nanoseconds its ``act`` took, to the fault when it did not return)."""
    t = perf_counter_ns()
    try:
        if want[seat]:
            action = player.act_in_worlds(obs, _worlds(state, seat, want, rng, obs))
        else:
            action = player.act(obs)
    except BotFault as f:
        return None, _fault(seat, f.outcome, f.reason, f.stage, state.deal_no, len(state.history), move,
                            None, f.traceback), perf_counter_ns() - t
    except Exception as e:  # an in-process player's own error is its crash; contained here
        return None, _fault(seat, "crash", _exc_reason(e), "act", state.deal_no, len(state.history), move,
                            None, _excerpt(e)), perf_counter_ns() - t
    dt = perf_counter_ns() - t
    try:
        state.apply(action)
    except IllegalAction as e:
        return action, _fault(seat, "illegal", str(e), "act", state.deal_no, len(state.history), move,
                              action if isinstance(action, str) else _short_repr(action)), dt
    except TypeError as e:  # an action that is not even a string
        why = f"act returned {type(action).__name__}, not a string: {e}"
        return action, _fault(seat, "illegal", why, "act", state.deal_no, len(state.history), move,
                              _short_repr(action)), dt
    return action, None, dt


def _worlds(state: State, seat: int, want: list[int], rng: random.Random, obs: dict[str, Any]) -> list[State]:
    """``want[seat]`` determinized worlds of ``seat``'s information set (none for a forced move, or
    when the game does not implement ``determinize``)."""
    if len(obs["legal_actions"]) <= 1:
        return []
    try:
        return [state.determinize(seat, rng) for _ in range(want[seat])]
    except NotImplementedError:
        want[seat] = -1 if want[seat] > 0 else want[seat]
        return []


def _fault(seat: int, outcome: str, reason: str, stage: str, deal: int, ply: int, move: int,
           action: str | None, tb: str = "") -> Fault:
    """A :class:`Fault` with every bot-supplied text cleaned (:func:`bots.text.clean_text`): the
    reason (which may quote the action), the action and the traceback excerpt.  Both paths, the
    sandbox's and an in-process player's, record faults only through here."""
    return Fault(seat, outcome, clean_text(reason), stage, deal, ply, move,
                 None if action is None else clean_text(action, 200), clean_lines(tb))


def _exc_reason(e: BaseException) -> str:
    """``Type: first line of the message`` of an in-process player's exception (its ``str`` may fail)."""
    try:
        text = str(e)
    except Exception:  # a player's exception whose __str__ fails: name the type only
        return f"{type(e).__name__} (its message cannot be shown)"
    first = text[:4000].splitlines()[0] if text.strip() else ""
    return f"{type(e).__name__}: {first}"[:300] if first else type(e).__name__


def _short_repr(x: object) -> str:
    try:
        return repr(x)[:100]
    except Exception:  # a player's object whose __repr__ fails
        return f"<{type(x).__name__}>"


def _excerpt(e: BaseException, lines: int = 12) -> str:
    try:
        text = "".join(traceback.format_exception(e))
    except Exception:  # the player's exception cannot be formatted: the reason names it
        return ""
    return "\n".join(ln[:300] for ln in text.rstrip().splitlines()[-lines:])


def _close(player: Any) -> None:
    close = getattr(player, "close", None)
    if callable(close):
        close()


# --------------------------------------------------------------------------- players from names
def builtin_source(name: str) -> BotSource:
    """The source file of a built-in player (to run it in the sandbox)."""
    return BotSource(Path(__file__).resolve().parent / "builtin" / f"{name}.py", False)


def resolve_bot(name: str, data_dir: str | Path | None = None) -> tuple[BotSource, bool]:
    """(source, trusted) for a bot name: a built-in, a path, or a submitted ``NAME[@VERSION]``."""
    if name in BUILTIN:
        return builtin_source(name), True
    if looks_like_path(name):
        return bot_source(name), False
    from bots.registry import Registry  # imported here: sqlite only when submitted bots are used
    entry = Registry(data_dir).resolve(name)
    return entry.source(), False


def parse_ref(ref: str) -> tuple[str, dict[str, int | float]]:
    """(bot name, constructor options) of a bot reference as ``matches.bot_refs`` shows it: a built-in
    with options is written ``ismcts(iterations=40,time_limit=0.5)``; any other form (a built-in,
    ``NAME@VERSION``, a path) has no options.  ``ValueError`` (one line) for options a built-in does
    not accept, or a value out of its range.

    >>> parse_ref("ismcts(iterations=40)")
    ('ismcts', {'iterations': 40})
    >>> parse_ref("alice@2")
    ('alice@2', {})
    """
    m = re.fullmatch(r"([a-z_]+)\((.*)\)", ref)
    if m is None or m.group(1) not in BUILTIN:
        return ref, {}
    name, body = m.group(1), m.group(2)
    import importlib

    from bots.builtin._common import check_options
    declared = getattr(importlib.import_module(f"bots.builtin.{name}"), "OPTIONS", ())
    kinds = {o.name: o.kind for o in declared}
    raw: dict[str, Any] = {}
    for item in filter(None, body.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bot {ref!r}: expected NAME(key=value,...), got {item!r}")
        kind = kinds.get(key.strip(), str)
        try:
            raw[key.strip()] = kind(value.strip())
        except ValueError:
            raw[key.strip()] = value.strip()
    try:
        return name, check_options(name, declared, raw)
    except ValueError as e:
        raise ValueError(f"bot {ref!r}: {e}") from None


def make_players(game: Game, names: Sequence[str], seed: int, sandbox: bool = False,
                 limits: Limits = DEFAULT_LIMITS, data_dir: str | Path | None = None,
                 seeds: Sequence[int] | None = None,
                 sources: Mapping[str, BotSource] | None = None) -> list[Player]:
    """Players for each seat, each with its own seed: ``seeds`` by seat (a tournament's, derived
    from its secret), by default :func:`seat_seed` of the match seed and the seat.  ``sources``:
    submitted bots by name whose files the caller holds (checked against their digest), used instead
    of the registry's copy; they run in a sandbox as every submitted bot does.

    Every form ``matches.bot_refs`` holds is a name here (:func:`parse_ref`): a built-in with options
    (``ismcts(iterations=40)``) is made with them, in this process, as the tournament made it.
    Built-ins run in this process unless ``sandbox``; bot files and submitted bots always run in a
    sandbox.  Unknown names raise ``ValueError`` naming the accepted forms.  Close the players with
    :func:`close_players` after the match.
    """
    players: list[Player | None] = [None] * len(names)
    own = list(seeds) if seeds is not None else seat_seeds(seed, len(names))
    if len(own) != len(names):
        raise ValueError(f"seeds: {len(own)} seeds for {len(names)} players")
    boxed: list[tuple[int, BotSource, bool, int]] = []
    for seat, ref in enumerate(names):
        n, options = parse_ref(ref)
        if options:   # a built-in with constructor options runs in this process (tournaments/spec.py)
            import importlib
            players[seat] = importlib.import_module(f"bots.builtin.{n}").Bot(game.id, seat, own[seat],
                                                                               **options)
            continue
        if n in BUILTIN and not sandbox:
            players[seat] = builtin_player(n, game.id, seat, own[seat])
            continue
        try:
            src, trusted = (sources[n], False) if sources is not None and n in sources else \
                resolve_bot(n, data_dir)
        except LookupError as e:
            why = e.args[0] if e.args else ""
            raise ValueError(f"unknown bot {n!r}: not a built-in ({', '.join(BUILTIN)}), a bot file, or "
                             f"a submitted bot NAME or NAME@VERSION ({why})") from None
        worlds = 0
        if trusted:
            import importlib
            worlds = int(getattr(importlib.import_module(f"bots.builtin.{n}").Bot, "worlds", 0))
        boxed.append((seat, src, trusted, worlds))
    if boxed:
        started = start_players([(src, t, w) for _, src, t, w in boxed], game.id,
                                [own[s] for s, *_ in boxed], limits, [s for s, *_ in boxed])
        for (seat, *_), p in zip(boxed, started, strict=True):
            players[seat] = p
    return [p for p in players if p is not None]


def close_players(players: Sequence[Any]) -> None:
    for p in players:
        _close(p)


def play(game_id: str, bot_names: Sequence[str], seed: int, max_deals: int | None = None, *,
         sandbox: bool = False, limits: Limits = DEFAULT_LIMITS, seeds: Sequence[int] | None = None,
         data_dir: str | Path | None = None, **options: object) -> MatchResult:
    """Load ``game_id`` with ``options``, make the players and play one match.  ``bot_names``: any
    form :func:`make_players` takes, every ``matches.bot_refs`` form included.  ``seeds``: the seats'
    own seeds (a tournament match's, to replay it; default :func:`seat_seeds` of ``seed``);
    ``tournaments.analysis.replay.logged_match`` gives a logged match's seed, seeds and refs."""
    game = load_game(game_id, **options)
    players = make_players(game, bot_names, seed, sandbox=sandbox, limits=limits, seeds=seeds,
                           data_dir=data_dir)
    try:
        return play_match(game, players, seed, max_deals, seeds=seeds)
    finally:
        close_players(players)


__all__ = ["MATCH_OBSERVATION", "UNTIMED", "Fault",
           "MatchResult", "MoveColumns", "MoveRecord",
           "SandboxPlayer", "close_players", "derive_seed", "make_players",
           "parse_ref", "placement", "play", "play_match", "player_clock", "seat_seed", "seat_seeds"]

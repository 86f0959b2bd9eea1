"""Fixed integer action ids for every game (issue 24, section 2): :class:`ActionSpace`.

A game's alphabet is the concatenation of one :class:`Block` per entry of its ``action_forms``
(a class attribute of its ``Game`` class), in that order.  A form is words separated by spaces;
upper-case parts of a word are *slots* that vary row-major (the first slot slowest):

- ``CARD``: the natural tokens of the game's packs in card-id order (suits C D H S, ranks 2..A);
  ``CARD|JK``: the naturals then ``JK``; ``NAMED``: ``JK=X`` for every natural ``X``;
- ``SUIT``: ``C D H S`` (so ``swap 7SUIT`` is ``swap 7C`` .. ``swap 7S``);
- ``a..b``: the integers a to b ascending;
- any other upper-case word of three or more letters names a *catalogue*, filled by the game's
  ``action_catalogue(form)`` hook from the game's own rule objects (``discard COMBINATION``,
  ``declare ANNOUNCEMENT``).

Everything else is literal (``JK``, ``draw stock``, ``pile``).  Ids are a bijection with the
engine's canonical strings; the alphabet never depends on options or player counts.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.cards import RANKS, SUITS, TOKENS
from engine.core import Game, State, load_game

if TYPE_CHECKING:
    from numpy.typing import NDArray

NATURALS: tuple[str, ...] = tuple(TOKENS[:52])
_SLOT = re.compile(r"CARD\|JK|CARD|NAMED|SUIT|\d+\.\.\d+|[A-Z]{3,}")
BUILTIN_SLOTS = ("CARD|JK", "CARD", "NAMED", "SUIT")


@dataclass(frozen=True)
class Block:
    """One form's contiguous ids: ``base`` .. ``base + size - 1``."""

    form: str
    base: int
    size: int


def card_domain(game: Game) -> tuple[str, ...]:
    """The natural tokens of a game's packs, in card-id order: the trick deck of a trick game,
    every natural of the 52-card pack otherwise."""
    deck = game.card_tables().deck
    if not deck:
        return NATURALS
    have = set(deck)
    return tuple(t for t in NATURALS if t in have)


def form_strings(game: Game, form: str, cards: tuple[str, ...]) -> list[str]:
    """Every string of one form, row-major over its slots (the first slot slowest)."""
    parts: list[str | list[str]] = []
    pos = 0
    for m in _SLOT.finditer(form):
        if m.start() > pos:
            parts.append(form[pos:m.start()])
        parts.append(_domain(game, form, m.group(), cards))
        pos = m.end()
    if pos < len(form):
        parts.append(form[pos:])
    slots = [p for p in parts if isinstance(p, list)]
    out = []
    for combo in itertools.product(*slots):
        it = iter(combo)
        out.append("".join(p if isinstance(p, str) else next(it) for p in parts))
    return out


def _domain(game: Game, form: str, slot: str, cards: tuple[str, ...]) -> list[str]:
    if slot == "CARD":
        return list(cards)
    if slot == "CARD|JK":
        return [*cards, "JK"]
    if slot == "NAMED":
        return ["JK=" + t for t in cards]
    if slot == "SUIT":
        return list(SUITS)
    if ".." in slot:
        a, b = (int(x) for x in slot.split(".."))
        return [str(i) for i in range(a, b + 1)]
    return list(game.action_catalogue(form))


class ActionSpace:
    """The fixed alphabet of one game id (cached by :func:`action_space`)."""

    game_id: str
    size: int
    blocks: tuple[Block, ...]
    strings: tuple[str, ...]

    def __init__(self, game_id: str, game: Game | None = None) -> None:
        """The alphabet of ``game_id``, built from ``game`` (default: the game with its default
        options; the tests build it from other options to show that it does not change)."""
        if game is None:
            game = load_game(game_id)
        forms = getattr(type(game), "action_forms", None)
        if not forms:
            raise ValueError(f"game {game_id} declares no action_forms (engine.rl needs them: docs/rl.md)")
        cards = card_domain(game)
        strings: list[str] = []
        blocks: list[Block] = []
        for form in forms:
            got = form_strings(game, form, cards)
            blocks.append(Block(form, len(strings), len(got)))
            strings += got
        ids = {s: i for i, s in enumerate(strings)}
        if len(ids) != len(strings):
            dup = sorted({s for s in strings if strings.count(s) > 1})[:5]
            raise ValueError(f"game {game_id}: action forms list a string twice: {dup}")
        self.game_id = game_id
        self.size = len(strings)
        self.blocks = tuple(blocks)
        self.strings = tuple(strings)
        self._ids = ids
        self._forms_text = ", ".join(forms)

    def __repr__(self) -> str:
        return f"<ActionSpace {self.game_id} size {self.size}, {len(self.blocks)} blocks>"

    def id(self, action: str) -> int:
        """The id of a canonical action string (exactly as ``legal_actions()`` lists it)."""
        i = self._ids.get(action) if isinstance(action, str) else None
        if i is None:
            raise ValueError(f"{action!r:.80} is not an action of {self.game_id} (its {self.size} ids are "
                             f"the forms {self._forms_text}; docs/rl.md)")
        return i

    def string(self, action_id: Any) -> str:
        """The canonical string of an id (Python or numpy integer, not a bool)."""
        if isinstance(action_id, (bool, np.bool_)) or not isinstance(action_id, (int, np.integer)):
            raise ValueError(f"an action id of {self.game_id} is an int 0..{self.size - 1}, "
                             f"got {type(action_id).__name__} {action_id!r:.40}")
        if not 0 <= action_id < self.size:
            raise ValueError(f"action id {int(action_id)} is outside 0..{self.size - 1} ({self.game_id})")
        return self.strings[int(action_id)]

    def legal_ids(self, state: State) -> list[int]:
        """The ids of the state's legal actions, ascending."""
        ids = self._ids
        try:
            return sorted([ids[a] for a in state.legal_actions()])
        except KeyError as e:
            raise ValueError(f"{self.game_id}: legal action {e.args[0]!r} has no id (docs/rl.md)") from None

    def mask(self, state: State) -> NDArray[np.int8]:
        """A 0/1 ``int8`` vector of length :attr:`size`: 1 at every legal id."""
        m = np.zeros(self.size, dtype=np.int8)
        m[self.legal_ids(state)] = 1
        return m

    def block_of(self, action_id: int) -> Block:
        for b in self.blocks:
            if b.base <= action_id < b.base + b.size:
                return b
        raise ValueError(f"action id {action_id} is outside 0..{self.size - 1} ({self.game_id})")


def action_space(game_id: str) -> ActionSpace:
    """The :class:`ActionSpace` of ``game_id`` (built once, then cached)."""
    if not isinstance(game_id, str):
        raise ValueError(f"a game id is a str, got {type(game_id).__name__}")
    return _cached_space(game_id)


@cache
def _cached_space(game_id: str) -> ActionSpace:
    return ActionSpace(game_id)


__all__ = ["BUILTIN_SLOTS", "RANKS", "ActionSpace", "Block", "action_space", "card_domain", "form_strings"]

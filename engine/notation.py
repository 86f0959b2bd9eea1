"""Action notation (CONTRACT.md): a lower-case verb, then card tokens or words.

Parsing is strict about cards (``10H``, ``qs`` and ``Q♠`` are errors that show the right form) and
lenient about spacing.  :func:`parse_action` returns the verb and its arguments; games decide which
parsed actions are legal.

>>> parse_action("discard 5H JK=6H  7H")
('discard', ('5H', 'JK=6H', '7H'))
>>> parse_action("play 10H")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.errors.IllegalAction: bad card '10H' in 'play 10H': write rank then suit, e.g. 'TH' or 'QS' ...
"""
from __future__ import annotations

from engine.cards import JOKER_TOKEN, SUITS, bad_card_message, is_token
from engine.errors import IllegalAction, quoted

# verb -> (argument kind, example form)
#   cards1: exactly one card; cards: one or more cards; cards0: zero or more cards;
#   none: no argument; suit: a suit letter or "none"; draw: stock | discard | one card;
#   layoff: one or more cards then a meld number; words: free lower-case words.
VERBS: dict[str, tuple[str, str]] = {
    "play": ("cards1", "play QS"),
    "pass": ("cards0", "pass QS, or pass alone to decline"),
    "trump": ("suit", "trump H, or trump none"),
    "delegate": ("none", "delegate"),
    "double": ("none", "double"),
    "redouble": ("none", "redouble"),
    "discard": ("cards", "discard 5H 6H 7H (a joker in a run names its card: JK=6H)"),
    "draw": ("draw", "draw stock, draw discard or draw 5H"),
    "call": ("none", "call"),
    "knock": ("none", "knock"),
    "meld": ("cards", "meld 5H JK=6H 7H"),
    "layoff": ("layoff", "layoff 8H 2"),
    "declare": ("words", "declare <words the game lists>"),
}


def form_of(verb: str) -> str:
    return VERBS[verb][1] if verb in VERBS else verb


def parse_action(action: str, extra_verbs: dict[str, tuple[str, str]] | None = None
                 ) -> tuple[str, tuple[str, ...]]:
    """Split an action into its verb and arguments, checking the shared grammar.

    ``extra_verbs`` adds a game's own verbs (same shape as :data:`VERBS`).
    """
    if not isinstance(action, str):
        raise IllegalAction(f"an action is a string such as 'play QS', got {type(action).__name__}")
    parts = action.split()
    if not parts:
        raise IllegalAction("empty action; an action is a verb and its cards, such as 'play QS'")
    verb, args = parts[0], tuple(parts[1:])
    grammar = VERBS if not extra_verbs else {**VERBS, **extra_verbs}
    if verb not in grammar:
        raise IllegalAction(f"unknown verb {quoted(verb)} in {quoted(action)}; "
                            f"verbs are: {', '.join(sorted(grammar))}")
    kind, form = grammar[verb]
    if kind == "none" and args:
        raise IllegalAction(f"{quoted(verb)} takes no argument; the form is {form!r}")
    elif kind in ("cards1", "cards", "cards0"):
        if kind == "cards1" and len(args) != 1:
            raise IllegalAction(f"{quoted(verb)} takes exactly one card in {quoted(action)}; "
                                f"the form is {form!r}")
        if kind == "cards" and not args:
            raise IllegalAction(f"{quoted(verb)} needs at least one card; the form is {form!r}")
        for a in args:
            _card_arg(a, action, form)
    elif kind == "suit":
        if len(args) != 1 or (args[0] not in SUITS and args[0] != "none"):
            raise IllegalAction(f"bad trump in {quoted(action)}: name a suit letter C D H S or 'none'; "
                                f"the form is {form!r}")
    elif kind == "draw":
        if len(args) != 1:
            raise IllegalAction(f"'draw' takes one argument in {quoted(action)}; the form is {form!r}")
        if args[0] not in ("stock", "discard"):
            _card_arg(args[0], action, form)
    elif kind == "layoff":
        if len(args) < 2 or not args[-1].isdigit():
            raise IllegalAction(f"bad layoff {quoted(action)}: give the cards, then the meld number; "
                                f"the form is {form!r}")
        for a in args[:-1]:
            _card_arg(a, action, form)
    return verb, args


def _card_arg(arg: str, action: str, form: str) -> None:
    if is_token(arg):
        return
    if arg.startswith(JOKER_TOKEN + "="):
        named = arg[len(JOKER_TOKEN) + 1:]
        if is_token(named) and named != JOKER_TOKEN:
            return
        raise IllegalAction(f"bad joker {quoted(arg)} in {quoted(action)}: a joker names the card it "
                            f"stands for as JK=6H; the form is {form!r}")
    message = bad_card_message(arg).replace(quoted(arg), f"{quoted(arg)} in {quoted(action)}", 1)
    raise IllegalAction(f"{message}; the form is {form!r}")


def canonical(verb: str, args: tuple[str, ...] | list[str]) -> str:
    return " ".join((verb, *args)) if args else verb


def split_joker(arg: str) -> tuple[str, str | None]:
    """``'JK=6H'`` -> ``('JK', '6H')``; ``'5H'`` -> ``('5H', None)``."""
    if arg.startswith(JOKER_TOKEN + "="):
        return JOKER_TOKEN, arg[len(JOKER_TOKEN) + 1:]
    return arg, None

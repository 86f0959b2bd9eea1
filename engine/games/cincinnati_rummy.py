"""Cincinnati Rummy.  Seed 003 L715-742 (the scoring is L742, the file's last line); RULES.md 2.28
and "Common rummy definitions".  Decisions followed: CR1-CR3, X1, X3, X6, X7 (no cap on
re-forming, but see ``max_reforms``).

2-7 players; packs and deal as Wildcard Rummy (CR3 = WR1, WR2): one 54-card pack for 2-6 players,
two for 7 (option ``packs``); one pack: 7 each (6 players: 6; 3 players: 7, option
``three_player_cards`` 10); two packs: 10 each.  Seat 0 deals first (X1); the deal passes left.

Nothing is melded during play; hands stay hidden.  Melds: 3+ cards, sets of one rank (one card per
suit, at most 4) or runs of one suit; the ace high or low, never both; jokers wild (2s are not),
every meld holds a natural card.

A turn (notation):

* ``draw stock`` or ``draw discard``;
* ``pass`` or a form of going out, offered only when the player can go out now (CR4, every
  form that is possible): ``knock`` (he says "rummy") when all his cards meld (out at once, without
  a discard), and ``knock XX`` for each card XX whose discard leaves all his other cards melded
  (never the card taken from the discard pile this turn, nor one identical to it), also when the
  whole hand melds;
* ``discard XX`` (after ``pass``): never the card taken from the discard pile this turn, nor one
  identical to it.

Stock exhausted: the discard pile but its top card is turned over, unshuffled (``stock_flipped``;
option ``reshuffle``).  A turn that begins with no stock and none to form ends the deal with no
winner (X7, ``deal_without_winner``).

Scoring (CR1): the winner scores the value of the cards in his own combinations: pips face value (a
2 is 2), J Q K 10, A 11, joker 15; a final discard counts for nothing; the others score nothing
(``went_out_all_at_once``).  Option ``scoring="penalties"``: the winner collects the others'
unmelded cards instead, as in Wildcard Rummy (joker 25).  First to ``target`` (100, CR2) wins.


Safety net (engine defaults, not in the card): X7 puts no cap on re-forming the stock here, but a
turned-over stock and deterministic players can repeat a deal for ever (four greedy bots do in
Cincinnati Rummy), so option ``max_reforms`` (30; ``None`` = X7's no cap) ends a deal whose stock
would be re-formed a 31st time as a deal without winner (nobody scores), and option
``deal_cap`` (50) ends a match that has found no winner by then.
"""
from __future__ import annotations

from typing import ClassVar

from engine.cards import PHYS, TOKENS, bits, build_deck, value_table
from engine.core import NO_CARD_TABLES, Option, rank_by, register
from engine.deadwood import MeldSpec, Solver
from engine.games._knock import OUT_VERBS, AllMeldState, ConfrontationGame
from engine.games.wildcard_rummy import deal_size, packs_for

COMBO_VALUES = value_table(ace=11, joker=15)  # CR1
PENALTY_VALUES = value_table(ace=11, joker=25)  # CR1 option "penalties"


class CincinnatiRummyState(AllMeldState):
    game: CincinnatiRummy
    ban_taken: ClassVar[bool] = True

    def _match_deck(self) -> list[int]:
        packs = packs_for(self.players, self.game.options["packs"])  # CR3
        if packs == 1 and self.players == 7:
            raise ValueError("cincinnati_rummy: 7 players need two packs (CR3)")
        return build_deck(jokers=2 * packs, packs=packs)

    def _deal_size(self) -> int:
        packs = packs_for(self.players, self.game.options["packs"])
        return deal_size(self.players, packs, self.game.options["three_player_cards"])

    def _stock_out(self) -> None:
        self._emit("deal_without_winner", pile=len(self.pile))
        self.sheet.append([0.0] * self.players)
        self.last = {"deal": self.deal_no, "winner": None}
        self._next_deal()

    def _end_out(self, seat: int, discard: int | None) -> None:
        n = self.players
        hands, melds, dead, dw = self._shown()
        pts = [0] * n
        if self.game.options["scoring"] == "combinations":
            # CR1: the value of the winner's own combinations (every card he keeps)
            pts[seat] = sum(COMBO_VALUES[c] for c in bits(self.hands[seat]))
        else:
            pts[seat] = sum(dw[s] for s in range(n) if s != seat)
        self._emit("went_out_all_at_once", seat=seat, discard=None if discard is None else TOKENS[discard],
                   points=pts[seat], hands=hands, melds=melds, deadwood_cards=dead, penalties=dw)
        self.sheet.append([float(p) for p in pts])
        self.totals[seat] += pts[seat]
        self.last = {"deal": self.deal_no, "winner": seat, "points": pts, "penalties": dw,
                     "hands": hands, "melds": melds, "deadwood_cards": dead}
        if self.totals[seat] >= self.game.options["target"]:  # CR2
            self._finish()
            return
        self._next_deal()

    def _next_deal(self) -> None:
        if self._deals_done() or self.deal_no >= self.game.options["deal_cap"]:
            self._finish()
            return
        self._start_deal((self.dealer + 1) % self.players)

    def scores(self) -> list[float]:
        return [float(t) for t in self.totals]

    def ranking(self) -> list[int]:
        return rank_by(self.totals, lower_is_better=False)

    def _invariants(self) -> list[str]:
        out: list[str] = []
        t = list(self.start_totals)
        for row in self.sheet:
            if sum(1 for v in row if v) > 1 or any(v < 0 for v in row):
                out.append(f"deal row {row}: only the winner scores")
            t = [t[s] + int(row[s]) for s in range(self.players)]
        if t != self.totals:
            out.append(f"totals {self.totals} differ from the sheet {t}")
        last = self.last
        if last is not None and last.get("winner") is not None and self.sheet:
            w = last["winner"]
            if last["penalties"][w] != 0:
                out.append(f"the winner {w} did not meld every card: {last['deadwood_cards'][w]}")
            if self.game.options["scoring"] == "combinations":
                v = sum(COMBO_VALUES[PHYS[tok][0]] for tok in last["hands"][w])
                if v != last["points"][w]:
                    out.append(f"winner {w} scored {last['points'][w]}, his combinations are worth {v}")
        return out


@register
class CincinnatiRummy(ConfrontationGame):
    id = "cincinnati_rummy"
    name = "Cincinnati Rummy"
    family = "rummy"
    seed_ref = "seed 003 L715-742; RULES.md 2.28"
    summary = ("2-7 players, one 54-card pack (two for 7 players), 7 cards each (6 players: 6; two "
               "packs: 10). Draw from the stock or the discard pile, discard another card than the one "
               "taken; nothing is melded during play. Go out only all at once, every card in sets or "
               "runs (jokers wild, aces high or low), with or without a final discard (knock): you score the "
               "value of your own combinations (pips face, faces 10, A 11, joker 15). First to 100.")
    notation = "draw stock\ndraw discard\nknock\nknock 5H\npass\ndiscard 5H"
    min_players = 2
    max_players = 7
    default_players = 2
    rule_events = ("went_out_all_at_once", "stock_flipped", "deal_without_winner")
    extra_verbs: ClassVar[dict[str, tuple[str, str]]] = OUT_VERBS  # CR4: knock, knock XX
    options_spec = (
        Option("scoring", "combinations", "CR1: 'combinations' (the winner's own melds) or 'penalties' "
               "(the others' unmelded cards, joker 25)", choices=("combinations", "penalties")),
        Option("packs", None, "CR3/WR1: packs (1 or 2); default one for 2-6 players, two for 7",
               choices=(None, 1, 2)),
        Option("three_player_cards", 7, "CR3/WR2: cards each with 3 players and one pack", choices=(7, 10)),
        Option("reshuffle", False, "Stock exhausted: shuffle the pile instead of turning it over"),
        Option("max_reforms", 30, "X7 safety net: stock re-formings per deal, then the deal ends with no "
               "winner (None: no cap, X7; deterministic players can loop for ever) [engine default]",
               nullable=True, check=lambda v: v >= 0, max=1000),
        Option("deal_cap", 50, "Safety net: the match ends after this many deals even if nobody reached "
               "the target (deals without a winner score nothing) [engine default]",
               check=lambda v: v >= 1, max=1000),
        Option("target", 100, "CR2: the match ends when a total reaches this [engine default]",
               check=lambda v: v >= 1, max=10000),
    )
    state_class = CincinnatiRummyState
    tables = NO_CARD_TABLES  # no tricks, no card points

    def make_solver(self) -> Solver:
        return Solver(MeldSpec(ace_low=True, ace_high=True, wild_twos=False), PENALTY_VALUES, 25)

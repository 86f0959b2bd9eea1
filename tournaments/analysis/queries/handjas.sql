-- Handjas, RULES.md 2.11 (HJ1-HJ21), checked from the logged actions and events.
-- 36 cards; no card enters a hand once play has begun (the swap and exchange come first), so a seat's
-- holding at a trick is what it plays from then on.

-- setup
CREATE OR REPLACE TEMP VIEW hj_moves AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, mv.action, m.players,
       sum(CASE WHEN starts_with(mv.action, 'play ') THEN 1 ELSE 0 END)
           OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS plays_before
FROM moves mv JOIN matches m USING (match_id)
WHERE mv.game = 'handjas';

CREATE OR REPLACE TEMP VIEW hj_plays AS
SELECT match_id, deal, ply, seat, players, substr(action, 6, 2) AS card, substr(action, 7, 1) AS suit,
       row_number() OVER (PARTITION BY match_id, deal ORDER BY ply) - 1 AS k
FROM hj_moves WHERE starts_with(action, 'play ');

CREATE OR REPLACE TEMP VIEW hj_tricks AS
SELECT *, k // least(players, 4) AS trick, k % least(players, 4) AS pos,
       first_value(suit) OVER (PARTITION BY match_id, deal, k // least(players, 4) ORDER BY k) AS led
FROM hj_plays;

-- invariant: handjas_36_cards_once_per_deal
-- A deal plays each card of the 36 (6 to A) at most once; all 36 with four or five players.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards' AS detail
FROM hj_plays GROUP BY match_id, deal, players
HAVING count(*) <> count(DISTINCT card) OR count(*) > 36 OR (players >= 4 AND count(*) NOT IN (36))
    OR bool_or(substr(card, 1, 1) IN ('2', '3', '4', '5'));

-- invariant: handjas_melds_swap_exchange_before_play
-- HJ12/HJ14: the trump-6 swap, the hand exchange and the melds all come before the first card.
SELECT match_id, 'deal ' || deal || ' ply ' || ply || ': ' || action || ' after ' || plays_before || ' plays' AS detail
FROM hj_moves
WHERE NOT starts_with(action, 'play ') AND coalesce(plays_before, 0) > 0;

-- invariant: handjas_one_exchange_two_or_three_players
-- HJ12: at most one exchange (or trump-6 swap) per deal, only with 2 or 3 players, each with its event.
SELECT mv.match_id, 'deal ' || mv.deal || ': ' || count(*) || ' ' || mv.action || ' actions with '
       || any_value(mv.players) || ' players, ' || count(e.match_id) || ' events' AS detail
FROM hj_moves mv
LEFT JOIN (SELECT * FROM events WHERE event IN ('handjas.hand_exchanged', 'handjas.trump6_swapped')) e
  ON e.match_id = mv.match_id AND e.ply = mv.ply
WHERE mv.action = 'exchange' OR starts_with(mv.action, 'swap ')
GROUP BY mv.match_id, mv.deal, mv.action
HAVING count(*) > 1 OR any_value(mv.players) > 3 OR count(e.match_id) <> count(*);

-- invariant: handjas_sitting_out_dealer_does_not_play
-- HJ5: with five players one seat sits out each deal (sat_out) and makes no move in it.
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' sits out but acted at ply ' || min(mv.ply) AS detail
FROM events e JOIN hj_moves mv ON mv.match_id = e.match_id AND mv.deal = e.deal AND mv.seat = e.seat
WHERE e.event = 'handjas.sat_out'
GROUP BY e.match_id, e.deal, e.seat;

-- invariant: handjas_off_suit_plays_are_trumps
-- Follow suit or trump: every card played off a led suit that the seat still held (it plays that suit
-- later in the deal) is of one suit only, the trump.  A jack held back is left out (HJ20: the bare Jas
-- need not follow a trump lead).
SELECT t.match_id, 'deal ' || t.deal || ': off-suit plays while holding the led suit in '
       || count(DISTINCT t.suit) || ' suits (' || string_agg(t.card, ' ') || ')' AS detail
FROM hj_tricks t
WHERE t.pos > 0 AND t.suit <> t.led
  AND EXISTS (SELECT 1 FROM hj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led AND substr(p.card, 1, 1) <> 'J')
GROUP BY t.match_id, t.deal
HAVING count(DISTINCT t.suit) > 1;

-- Honderden / Smousjas, two players: RULES.md 2.18 (HO1-HO20), checked from the logged actions and events.
-- 32 cards; tricks 1-7 draw from the stock (no need to follow), from trick 8 (play 15 of the deal) the
-- stock is empty and no card enters a hand again, so a seat's holding there is what it plays later.

-- setup
CREATE OR REPLACE TEMP VIEW ho_scope AS SELECT match_id FROM matches WHERE game = 'honderden';

-- include: _honderden.sql p=ho players=2

-- invariant: honderden_cards_once_per_deal
-- A deal plays each of the 32 cards at most once.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card) || ' distinct cards' AS detail
FROM ho_plays GROUP BY match_id, deal
HAVING count(*) <> count(DISTINCT card) OR count(*) > 32;

-- invariant: honderden_dek_ends_the_deal
-- HO12: "ik dek" ends the deal at once (right or wrong), with an ik_dek event at that ply.
SELECT d.match_id, 'deal ' || d.deal || ' ply ' || d.ply || ': ' ||
       CASE WHEN e.match_id IS NULL THEN 'declare dek without an ik_dek event'
            ELSE 'the deal goes on after declare dek' END AS detail
FROM ho_moves d
LEFT JOIN (SELECT * FROM events WHERE event = 'honderden.ik_dek') e
  ON e.match_id = d.match_id AND e.ply = d.ply AND e.seat = d.seat
WHERE d.action = 'declare dek'
  AND (e.match_id IS NULL OR EXISTS (SELECT 1 FROM ho_moves n WHERE n.match_id = d.match_id
                                     AND n.deal = d.deal AND n.ply > d.ply));

-- invariant: honderden_trump7_swap_once
-- HO15: at most one swap per deal, and only of a 7 (the trump 7), while the stock lasts (trick 1-7).
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' swaps (' || string_agg(action, ', ') || ')' AS detail
FROM ho_moves WHERE starts_with(action, 'swap ')
GROUP BY match_id, deal
HAVING count(*) > 1 OR bool_or(substr(action, 6, 1) <> '7') OR max(coalesce(plays_before, 0)) >= 14;

-- invariant: honderden_phase3_off_suit_plays_are_trumps
-- HO19: from trick 8 a seat holding the led suit follows or trumps, so every card played off a led
-- suit that the seat still held (it plays that suit later) is of one suit only: the trump.
SELECT t.match_id, 'deal ' || t.deal || ': off-suit plays while holding the led suit in '
       || count(DISTINCT t.suit) || ' suits (' || string_agg(t.card, ' ') || ')' AS detail
FROM ho_tricks t
WHERE t.k >= 14 AND t.pos = 1 AND t.suit <> t.led
  AND EXISTS (SELECT 1 FROM ho_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led)
GROUP BY t.match_id, t.deal
HAVING count(DISTINCT t.suit) > 1;

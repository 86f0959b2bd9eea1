-- Honderden, three players: RULES.md 2.19 (HT1-HT9), checked from the logged actions and events.
-- 24 cards, 8 each, no stock: a seat's holding at a trick is what it plays from then on.  The checks on
-- tricks skip matches with the elimination option (they switch to the two-player rules).

-- setup
CREATE OR REPLACE TEMP VIEW ht_scope AS
SELECT match_id FROM matches
WHERE game = 'honderden_3p' AND NOT coalesce(json_extract(options, '$.elimination')::BOOLEAN, false);

-- include: _honderden.sql p=ht players=3

-- invariant: honderden_3p_24_cards_once_per_deal
-- A deal plays at most the 24 cards A K Q J 10 9 (the engine's card tables), each at most once.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards, or a card below 9' AS detail
FROM ht_plays GROUP BY match_id, deal
HAVING count(*) <> count(DISTINCT card)
    OR count(*) > (SELECT count(*) FROM card_ranks WHERE game = 'honderden_3p')
    OR bool_or(card NOT IN (SELECT card FROM card_ranks WHERE game = 'honderden_3p'));

-- invariant: honderden_3p_dek_only_via_stuk
-- HT3: every dek has a dek_via_stuk event at its ply and ends the deal at once.
SELECT d.match_id, 'deal ' || d.deal || ' ply ' || d.ply || ': ' ||
       CASE WHEN e.match_id IS NULL THEN 'declare dek without a dek_via_stuk event'
            ELSE 'the deal goes on after declare dek' END AS detail
FROM ht_moves d
LEFT JOIN (SELECT * FROM events WHERE event IN ('honderden_3p.dek_via_stuk', 'honderden_3p.ik_dek')) e
  ON e.match_id = d.match_id AND e.ply = d.ply AND e.seat = d.seat
WHERE d.action = 'declare dek'
  AND (e.match_id IS NULL OR EXISTS (SELECT 1 FROM ht_moves n WHERE n.match_id = d.match_id
                                     AND n.deal = d.deal AND n.ply > d.ply));

-- invariant: honderden_3p_off_suit_plays_are_trumps
-- Follow suit or trump instead: every card played off a led suit that the seat still held (it plays
-- that suit later in the deal) is of one suit only, the trump.
SELECT t.match_id, 'deal ' || t.deal || ': off-suit plays while holding the led suit in '
       || count(DISTINCT t.suit) || ' suits (' || string_agg(t.card, ' ') || ')' AS detail
FROM ht_tricks t
WHERE t.pos > 0 AND t.suit <> t.led
  AND EXISTS (SELECT 1 FROM ht_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led)
GROUP BY t.match_id, t.deal
HAVING count(DISTINCT t.suit) > 1;

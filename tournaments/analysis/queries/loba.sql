-- Loba / Rami, RULES.md 2.25 (L1-L16, X3, X7), checked from the logged actions and rule events.

-- invariant: loba_one_end_per_deal
-- Every deal ends exactly once: a player goes out (L10), or no stock can be formed (X7).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'loba') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('loba.went_out', 'loba.deal_without_winner')
           GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'loba' AND coalesce(c.n, 0) <> 1;

-- invariant: loba_winner_scores_zero_or_bonus
-- L10/L14/L7: the player who goes out scores 0, or -10..0 when he went out in one go (his total never
-- below 0); the others never score below 0.
SELECT e.match_id, 'deal ' || e.deal || ': winner seat ' || e.seat || ' has deal row '
       || m.sheet[e.deal]::VARCHAR AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'loba.went_out' AND e.deal <= len(m.sheet)
  AND (m.sheet[e.deal][e.seat + 1] NOT BETWEEN -10 AND 0
       OR list_min(list_filter(m.sheet[e.deal], x -> x <> m.sheet[e.deal][e.seat + 1])) < 0)
UNION ALL
SELECT e.match_id, 'deal ' || e.deal || ': went_out_in_one by seat ' || e.seat || ' worth '
       || json_extract(e.data, '$.points') AS detail
FROM events e
WHERE e.event = 'loba.went_out_in_one' AND json_extract(e.data, '$.points')::DOUBLE NOT BETWEEN -10 AND 0;

-- invariant: loba_l16_meld_shapes
-- L16: a pierna has 3-6 cards in exactly three suits; an escalera has 4+ cards and at most 2 jokers.
SELECT match_id, 'deal ' || deal || ': ' || event || ' ' || data AS detail
FROM events
WHERE (event = 'loba.pierna' AND (json_extract(data, '$.size')::INTEGER NOT BETWEEN 3 AND 6
                                  OR json_extract(data, '$.suits')::INTEGER <> 3))
   OR (event = 'loba.escalera' AND (json_extract(data, '$.len')::INTEGER < 4
                                    OR json_extract(data, '$.jokers')::INTEGER > 2));

-- invariant: loba_l5_l6_elimination_and_buy_back
-- L5: eliminated only at >= 100; L6/L15: a buy-back lands below 100; at most two buy-backs per player.
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' eliminated at ' || json_extract(data, '$.total') AS detail
FROM events WHERE event = 'loba.eliminated' AND json_extract(data, '$.total')::DOUBLE < 100
UNION ALL
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' bought back to ' || json_extract(data, '$.total') AS detail
FROM events WHERE event = 'loba.buy_back' AND json_extract(data, '$.total')::DOUBLE >= 100
UNION ALL
SELECT match_id, 'seat ' || seat || ' bought back ' || count(*) || ' times' AS detail
FROM events WHERE event = 'loba.buy_back' GROUP BY match_id, seat HAVING count(*) > 2;

-- invariant: loba_eliminated_seat_never_plays
-- Eliminated players are skipped in play and dealing: no move by a seat after the deal that eliminated it.
SELECT e.match_id, 'seat ' || e.seat || ' eliminated in deal ' || e.deal || ' moved in deal ' || min(mv.deal) AS detail
FROM (SELECT * FROM events WHERE event = 'loba.eliminated') e
JOIN moves mv ON mv.match_id = e.match_id AND mv.seat = e.seat AND mv.deal > e.deal
GROUP BY e.match_id, e.seat, e.deal;

-- invariant: loba_l13_joker_discard
-- L13: a joker discarded as the last card goes out (joker_discard_to_finish with went_out at the same ply).
SELECT j.match_id, 'deal ' || j.deal || ': seat ' || j.seat || ' discarded a joker to finish without going out'
       AS detail
FROM events j
LEFT JOIN events o ON o.match_id = j.match_id AND o.deal = j.deal AND o.ply = j.ply AND o.seat = j.seat
                  AND o.event = 'loba.went_out'
WHERE j.event = 'loba.joker_discard_to_finish' AND o.match_id IS NULL;

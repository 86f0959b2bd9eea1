-- Ramino (Klop), RULES.md 2.26 (RK1-RK8), checked from the logged rule events and actions.

-- invariant: ramino_klop_one_end_per_deal
-- Every deal ends exactly once: a knock, a rummy, or no winner when no stock can be formed (X7).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'ramino_klop') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('ramino_klop.knock', 'ramino_klop.rummy', 'ramino_klop.deal_without_winner')
           GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'ramino_klop' AND coalesce(c.n, 0) <> 1;

-- invariant: ramino_klop_rk1_knock_below_7
-- RK1: a knock leaves deadwood 1..6 after the discard; a rummy leaves none.
SELECT match_id, 'deal ' || deal || ': ' || event || ' by seat ' || seat || ' with deadwood '
       || json_extract(data, '$.deadwood') AS detail
FROM events
WHERE (event = 'ramino_klop.knock' AND json_extract(data, '$.deadwood')::INTEGER NOT BETWEEN 1 AND 6)
   OR (event = 'ramino_klop.rummy' AND json_extract(data, '$.deadwood')::INTEGER <> 0);

-- invariant: ramino_klop_rk3_eliminated_at_101
-- RK3: a player is eliminated when his total reaches 101, not before.
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' eliminated at ' || json_extract(data, '$.total') AS detail
FROM events WHERE event = 'ramino_klop.eliminated' AND json_extract(data, '$.total')::INTEGER < 101;

-- invariant: ramino_klop_eliminated_seat_never_plays
-- Eliminated players are skipped in play: no move by a seat after the deal that eliminated it.
SELECT e.match_id, 'seat ' || e.seat || ' eliminated in deal ' || e.deal || ' moved in deal ' || min(mv.deal) AS detail
FROM (SELECT * FROM events WHERE event = 'ramino_klop.eliminated') e
JOIN moves mv ON mv.match_id = e.match_id AND mv.seat = e.seat AND mv.deal > e.deal
GROUP BY e.match_id, e.seat, e.deal;

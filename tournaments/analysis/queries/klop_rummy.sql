-- Klop Rummy, RULES.md 2.23 (KR1-KR13), checked from the logged rule events and actions.

-- invariant: klop_rummy_one_end_per_deal
-- Every deal ends exactly once: by a knock, or void with the stock exhausted (KR10).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' knock/stock_exhausted events' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'klop_rummy') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('klop_rummy.knock', 'klop_rummy.stock_exhausted') GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'klop_rummy' AND coalesce(c.n, 0) <> 1;

-- invariant: klop_rummy_kr13_rummy_is_a_zero_knock
-- KR13: a Rummy is a knock whose kept cards all meld (deadwood 0), and every such knock is a Rummy.
SELECT k.match_id, 'deal ' || k.deal || ': knock with deadwood ' || json_extract(k.data, '$.deadwood')
       || CASE WHEN r.match_id IS NULL THEN ' without' ELSE ' with' END || ' a rummy event' AS detail
FROM (SELECT * FROM events WHERE event = 'klop_rummy.knock') k
LEFT JOIN (SELECT * FROM events WHERE event = 'klop_rummy.rummy') r
  ON r.match_id = k.match_id AND r.deal = k.deal AND r.seat = k.seat
WHERE (json_extract(k.data, '$.deadwood')::INTEGER = 0) <> (r.match_id IS NOT NULL);

-- invariant: klop_rummy_kr8_knocker_lost_to_a_lower_or_tied_player
-- KR2/KR8: when the knocker loses, the winner is another seat whose deadwood is at most the knocker's.
SELECT l.match_id, 'deal ' || l.deal || ': knocker ' || l.seat || ' lost to seat '
       || json_extract(l.data, '$.winner') || ' with deadwoods ' || json_extract(k.data, '$.deadwoods') AS detail
FROM (SELECT * FROM events WHERE event = 'klop_rummy.knocker_lost') l
JOIN (SELECT * FROM events WHERE event = 'klop_rummy.knock') k USING (match_id, deal)
WHERE json_extract(l.data, '$.winner')::INTEGER = l.seat
   OR (json_extract(k.data, '$.deadwoods')->>(json_extract(l.data, '$.winner')::INTEGER))::INTEGER
      > json_extract(k.data, '$.deadwood')::INTEGER
   OR json_extract(l.data, '$.bonus')::INTEGER <> 10;

-- invariant: klop_rummy_tie_has_several_lowest
-- KR8: no winner only when two or more players share the lowest deadwood.
SELECT match_id, 'deal ' || deal || ': tie_no_winner with lowest ' || json_extract(data, '$.lowest') AS detail
FROM events WHERE event = 'klop_rummy.tie_no_winner' AND json_array_length(json_extract(data, '$.lowest')) < 2;

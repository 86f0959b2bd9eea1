-- Genive, RULES.md 2.1 (G1-G10), checked from the logged rule events.

-- invariant: genive_g7_halving_only_at_100_and_200
-- G7: a total is halved only when it lands exactly on 100 (-> 50) or 200 (-> 100);
-- with long_play, on any multiple of 100 (k*100 -> k*50).
SELECT e.match_id, 'deal ' || e.deal || ': score_halved ' || e.data AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'genive.score_halved' AND (
      json_extract(e.data, '$.after')::DOUBLE * 2 <> json_extract(e.data, '$.before')::DOUBLE
   OR CASE WHEN coalesce(json_extract(m.options, '$.long_play')::BOOLEAN, false)
           THEN json_extract(e.data, '$.before')::DOUBLE % 100 <> 0 OR json_extract(e.data, '$.before')::DOUBLE <= 0
           ELSE json_extract(e.data, '$.before')::DOUBLE NOT IN (100, 200) END);

-- invariant: genive_call_limit
-- A player calls Genive only with a hand total at most call_limit (5).
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' called with total '
       || json_extract(e.data, '$.total') || ' above the limit '
       || coalesce(json_extract(m.options, '$.call_limit')::INTEGER, 5) AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'genive.genive_called'
  AND json_extract(e.data, '$.total')::DOUBLE > coalesce(json_extract(m.options, '$.call_limit')::INTEGER, 5);

-- invariant: genive_one_call_per_deal
-- Each deal ends with exactly one call (the last deal of a match included).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' genive_called events' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'genive') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events WHERE event = 'genive.genive_called' GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'genive' AND coalesce(c.n, 0) <> 1;

-- invariant: genive_g10_bust_above_200
-- G10: a player busts only with a total above 200 (after halving); without long_play the match then ends.
SELECT e.match_id, 'deal ' || e.deal || ': player_busted ' || e.data || ' (deals played ' || m.deals_played || ')' AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'genive.player_busted' AND (json_extract(e.data, '$.total')::DOUBLE <= 200
   OR (NOT coalesce(json_extract(m.options, '$.long_play')::BOOLEAN, false) AND e.deal <> m.deals_played));

-- Geneve, RULES.md 2.2 (V1-V10), checked from the logged rule events.

-- invariant: geneve_reset_only_at_200
-- A total is reset only when it lands exactly on 200, and then to 150.
SELECT match_id, 'deal ' || deal || ': score_reset_200_to_150 ' || data AS detail
FROM events
WHERE event = 'geneve.score_reset_200_to_150'
  AND (json_extract(data, '$.before')::DOUBLE <> 200 OR json_extract(data, '$.after')::DOUBLE <> 150);

-- invariant: geneve_call_limit
-- A player calls only with a hand total at most call_limit (11).
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' called with total '
       || json_extract(e.data, '$.total') || ' above the limit '
       || coalesce(json_extract(m.options, '$.call_limit')::INTEGER, 11) AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'geneve.geneve_called'
  AND json_extract(e.data, '$.total')::DOUBLE > coalesce(json_extract(m.options, '$.call_limit')::INTEGER, 11);

-- invariant: geneve_eliminated_at_200
-- A player is eliminated only at a total of 200 or more (after the 200 -> 150 reset), once per match.
SELECT match_id, 'deal ' || deal || ': player_eliminated ' || data
       || CASE WHEN count(*) OVER (PARTITION BY match_id, seat) > 1 THEN ' (eliminated more than once)' ELSE '' END
       AS detail
FROM events
WHERE event = 'geneve.player_eliminated'
QUALIFY json_extract(data, '$.total')::DOUBLE < 200 OR count(*) OVER (PARTITION BY match_id, seat) > 1;

-- invariant: geneve_failed_call_scores_30
-- A failed call carries the +30 penalty, and only a call can fail: geneve_failed follows geneve_called.
SELECT f.match_id, 'deal ' || f.deal || ': geneve_failed ' || f.data
       || CASE WHEN c.match_id IS NULL THEN ' without a call' ELSE '' END AS detail
FROM (SELECT * FROM events WHERE event = 'geneve.geneve_failed') f
LEFT JOIN (SELECT * FROM events WHERE event = 'geneve.geneve_called') c
  ON c.match_id = f.match_id AND c.deal = f.deal AND c.seat = f.seat
WHERE c.match_id IS NULL OR json_extract(f.data, '$.penalty')::DOUBLE <> 30;

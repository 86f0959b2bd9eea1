-- Jokeren (Dutch home and club rules), RULES.md 2.5 (J1-J17, X3, X7), checked from the logged actions
-- and events.

-- include: _jokeren.sql

-- invariant: jokeren_nl_card_count_scoring
-- The winner of a deal scores 0 (an X); every deal row is whole card counts, none above the hand
-- a player can hold (13 dealt + 1 drawn); a deal has at most one winner.
SELECT m.match_id, 'deal ' || d.i || ': row ' || m.sheet[d.i]::VARCHAR AS detail
FROM matches m, range(1, 31) d(i)
WHERE m.game = 'jokeren_nl' AND d.i <= len(m.sheet)
  AND (list_min(m.sheet[d.i]) < 0 OR list_max(m.sheet[d.i]) > 14
       OR len(list_filter(m.sheet[d.i], x -> x <> floor(x))) > 0)
UNION ALL
SELECT e.match_id, 'deal ' || e.deal || ': winner seat ' || e.seat || ' scored '
       || m.sheet[e.deal][e.seat + 1] AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'jokeren_nl.went_out' AND e.deal <= len(m.sheet) AND m.sheet[e.deal][e.seat + 1] <> 0;

-- invariant: jokeren_nl_opening_threshold
-- J10/J14: an opening without going out totals at least 40 (50 under open50).
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' opened with ' || json_extract(e.data, '$.points')
       AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'jokeren_nl.opened'
  AND json_extract(e.data, '$.points')::INTEGER
      < CASE WHEN coalesce(json_extract(m.options, '$.open50')::BOOLEAN, false) THEN 50 ELSE 40 END
  AND NOT EXISTS (SELECT 1 FROM events b WHERE b.match_id = e.match_id AND b.deal = e.deal
                  AND b.seat = e.seat AND b.event = 'jokeren_nl.open_below_50_by_going_out');

-- invariant: jokeren_nl_pickup_only_when_used
-- J2: a turn that takes the top discard ends with discard_pickup_used (the card went on the table).
SELECT t.match_id, 'deal ' || t.deal || ' ply ' || t.ply || ': seat ' || t.seat
       || ' took the discard and ended the turn without using it' AS detail
FROM moves t
WHERE t.game = 'jokeren_nl' AND t.action = 'draw discard'
  AND NOT EXISTS (SELECT 1 FROM moves p WHERE p.match_id = t.match_id AND p.deal = t.deal AND p.ply > t.ply
                  AND p.seat = t.seat AND p.action = 'draw stock'
                  AND p.ply < coalesce((SELECT min(d.ply) FROM moves d WHERE d.match_id = t.match_id
                                        AND d.deal = t.deal AND d.ply > t.ply
                                        AND starts_with(d.action, 'discard ')), 1000000000))
  AND EXISTS (SELECT 1 FROM moves d WHERE d.match_id = t.match_id AND d.deal = t.deal AND d.ply > t.ply
              AND starts_with(d.action, 'discard '))
  AND NOT EXISTS (SELECT 1 FROM events e WHERE e.match_id = t.match_id AND e.deal = t.deal AND e.seat = t.seat
                  AND e.event = 'jokeren_nl.discard_pickup_used' AND e.ply > t.ply
                  AND e.ply = (SELECT min(d.ply) FROM moves d WHERE d.match_id = t.match_id AND d.deal = t.deal
                               AND d.ply > t.ply AND starts_with(d.action, 'discard ')));

-- invariant: jokeren_nl_deals_per_match
-- A whole match (no max_deals) is 10 deals (6 under competition), with a subtotal after deal 5.
SELECT match_id, deals_played || ' deals' AS detail
FROM matches
WHERE game = 'jokeren_nl' AND status = 'ok' AND max_deals IS NULL
  AND deals_played <> CASE WHEN coalesce(json_extract(options, '$.competition')::BOOLEAN, false) THEN 6 ELSE 10 END;

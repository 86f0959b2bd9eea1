-- Ramino (Drift) / Remigio, RULES.md 2.27 (RD1-RD6, X3, X7, elimination), checked from the logged
-- actions and rule events.

-- invariant: ramino_drift_one_end_per_deal
-- Every deal ends exactly once: a player goes out, with or without a discard (RD2), or no stock can be
-- formed (X7).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'ramino_drift') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('ramino_drift.went_out', 'ramino_drift.deal_without_winner')
           GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'ramino_drift' AND m.status = 'ok' AND coalesce(c.n, 0) <> 1;

-- invariant: ramino_drift_winner_scores_zero
-- Seed L711: the first player out scores 0 in that deal; nobody scores below 0, nor more than a
-- 7-card hand can hold (2 jokers and 5 faces: 90).
SELECT e.match_id, 'deal ' || e.deal || ': winner seat ' || e.seat || ' has deal row '
       || m.sheet[e.deal]::VARCHAR AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'ramino_drift.went_out' AND e.deal <= len(m.sheet)
  AND (m.sheet[e.deal][e.seat + 1] <> 0 OR list_min(m.sheet[e.deal]) < 0 OR list_max(m.sheet[e.deal]) > 90);

-- invariant: ramino_drift_taken_discard_not_discarded
-- Seed L699: the discard ending a turn is never the card taken from the discard pile in that turn (the
-- top discard is the last card discarded in the deal; a re-formed stock keeps it on the pile).
WITH taken AS (
    SELECT d.match_id, d.deal, d.seat, d.ply,
           (SELECT substr(p.action, 9) FROM moves p
            WHERE p.match_id = d.match_id AND p.deal = d.deal AND p.ply < d.ply
              AND starts_with(p.action, 'discard ')
            ORDER BY p.ply DESC LIMIT 1) AS card
    FROM moves d WHERE d.game = 'ramino_drift' AND d.action = 'draw discard'),
ends AS (
    SELECT t.match_id, t.deal, t.seat, t.ply, t.card,
           (SELECT n.action FROM moves n
            WHERE n.match_id = t.match_id AND n.deal = t.deal AND n.ply > t.ply
              AND (starts_with(n.action, 'discard ') OR starts_with(n.action, 'draw '))
            ORDER BY n.ply LIMIT 1) AS nxt
    FROM taken t WHERE t.card IS NOT NULL)
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' took ' || card || ' at ply ' || ply
       || ' and ended the turn with ' || nxt AS detail
FROM ends WHERE nxt = 'discard ' || card;

-- invariant: ramino_drift_rd5_layoff_after_coming_out
-- RD5: a player lays off only once he has come out, so an earlier 'confirm' (a meld of his) of the same
-- deal precedes every lay-off of his.
SELECT l.match_id, 'deal ' || l.deal || ': seat ' || l.seat || ' laid off (' || l.action
       || ') at ply ' || l.ply || ' without a meld of his' AS detail
FROM moves l
WHERE l.game = 'ramino_drift' AND starts_with(l.action, 'layoff ')
  AND NOT EXISTS (SELECT 1 FROM moves c WHERE c.match_id = l.match_id AND c.deal = l.deal
                  AND c.seat = l.seat AND c.action = 'confirm' AND c.ply < l.ply);

-- invariant: ramino_drift_elimination_at_101
-- Seed L713: a player is eliminated only at a total of 101 or more, once, and plays no later deal.
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' eliminated at ' || json_extract(data, '$.total') AS detail
FROM events WHERE event = 'ramino_drift.eliminated' AND json_extract(data, '$.total')::DOUBLE < 101
UNION ALL
SELECT e.match_id, 'seat ' || e.seat || ' eliminated in deal ' || e.deal || ' but moved in deal ' || mv.deal AS detail
FROM events e JOIN moves mv ON mv.match_id = e.match_id AND mv.seat = e.seat AND mv.deal > e.deal
WHERE e.event = 'ramino_drift.eliminated'
GROUP BY e.match_id, e.seat, e.deal, mv.deal
UNION ALL
SELECT match_id, 'seat ' || seat || ' eliminated ' || count(*) || ' times' AS detail
FROM events WHERE event = 'ramino_drift.eliminated' GROUP BY match_id, seat HAVING count(*) > 1;

-- invariant: ramino_drift_turn_shape
-- Every turn is one draw, then table play, then a discard (or going out without one, RD2): per seat
-- and deal, the turns begun (a draw not followed by another draw, which only the last take-back's
-- return of a taken discard allows) exceed the discards by at most one.
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' began ' || draws || ' turns and discarded '
       || discards || ' times' AS detail
FROM (SELECT match_id, deal, seat,
             count(*) FILTER (WHERE starts_with(action, 'draw ')
                              AND coalesce(nxt, '') <> 'draw stock') AS draws,
             count(*) FILTER (WHERE starts_with(action, 'discard ')) AS discards
      FROM (SELECT match_id, deal, seat, action,
                   lead(action) OVER (PARTITION BY match_id, deal, seat ORDER BY ply) AS nxt
            FROM moves
            WHERE game = 'ramino_drift' AND (starts_with(action, 'draw ') OR starts_with(action, 'discard ')))
      GROUP BY ALL)
WHERE draws - discards NOT IN (0, 1);

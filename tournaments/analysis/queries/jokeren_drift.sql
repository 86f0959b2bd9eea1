-- Jokeren, seed-003 description, RULES.md 2.21 (JD1-JD6, X3, X7), checked from the logged actions and events.

-- include: _jokeren.sql

-- invariant: jokeren_drift_winner_scores_zero
-- The player who goes out scores 0 in that deal; nobody scores below 0; a deal has at most one winner.
SELECT e.match_id, 'deal ' || e.deal || ': winner seat ' || e.seat || ' has deal row '
       || m.sheet[e.deal]::VARCHAR AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'jokeren_drift.went_out' AND e.deal <= len(m.sheet)
  AND (m.sheet[e.deal][e.seat + 1] <> 0 OR list_min(m.sheet[e.deal]) < 0)
UNION ALL
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' went_out events' AS detail
FROM events WHERE event = 'jokeren_drift.went_out' GROUP BY match_id, deal HAVING count(*) > 1;

-- invariant: jokeren_drift_turn_shape
-- Every turn is one draw, then table play, then one discard: per seat and deal, the draws exceed the
-- discards by at most one (the turn in progress when the deal ended is never left open).
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' drew ' || draws || ' times and discarded '
       || discards || ' times' AS detail
FROM (SELECT match_id, deal, seat,
             count(*) FILTER (WHERE starts_with(action, 'draw ')) AS draws,
             count(*) FILTER (WHERE starts_with(action, 'discard ')) AS discards
      FROM moves WHERE game = 'jokeren_drift' GROUP BY ALL)
WHERE draws - discards NOT IN (0, 1);

-- invariant: jokeren_drift_jd6_open40_points
-- JD6: an opening under open40 totals at least 40 points.
SELECT match_id, 'deal ' || deal || ': open40_met with ' || json_extract(data, '$.points') || ' points' AS detail
FROM events WHERE event = 'jokeren_drift.open40_met' AND json_extract(data, '$.points')::INTEGER < 40;

-- invariant: jokeren_drift_jd2_deals_per_match
-- JD2: a whole match (no max_deals) has 2 x players deals unless the deals option says otherwise.
SELECT match_id, deals_played || ' deals for ' || players || ' players' AS detail
FROM matches
WHERE game = 'jokeren_drift' AND status = 'ok' AND max_deals IS NULL
  AND deals_played <> coalesce(nullif(json_extract(options, '$.deals')::INTEGER, 0), 2 * players);

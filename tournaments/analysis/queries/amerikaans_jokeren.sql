-- Amerikaans Jokeren, RULES.md 2.20 (AJ1-AJ15, X3, X7), checked from the logged actions and events.

-- invariant: amerikaans_jokeren_six_rounds
-- A whole match (no max_deals) is six deals, one per opening requirement.
SELECT match_id, deals_played || ' deals' AS detail
FROM matches WHERE game = 'amerikaans_jokeren' AND status = 'ok' AND max_deals IS NULL AND deals_played <> 6;

-- invariant: amerikaans_jokeren_not_out_before_everyone_played
-- Nobody goes out before every player has had a turn (a draw outside the up-card round).
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' went out after ' || count(mv.ply)
       || ' turns of ' || m.players || ' players' AS detail
FROM events e JOIN matches m USING (match_id)
LEFT JOIN moves mv ON mv.match_id = e.match_id AND mv.deal = e.deal AND mv.ply < e.ply
                  AND starts_with(mv.action, 'draw ') AND mv.phase = 'draw'
WHERE e.event = 'amerikaans_jokeren.went_out'
GROUP BY e.match_id, e.deal, e.seat, m.players
HAVING count(mv.ply) < m.players;

-- invariant: amerikaans_jokeren_round_of_events
-- opened and went_out events carry the round of their deal (rounds 1..6 follow the deal number).
SELECT match_id, 'deal ' || deal || ': ' || event || ' says round ' || json_extract(data, '$.round') AS detail
FROM events
WHERE event IN ('amerikaans_jokeren.opened', 'amerikaans_jokeren.went_out')
  AND json_extract(data, '$.round')::INTEGER <> (deal - 1) % 6 + 1;

-- invariant: amerikaans_jokeren_aj14_joker_penalty
-- AJ14: a joker costs 10 for a holder who never came out in the deal, else 25.
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' pays ' || json_extract(e.data, '$.per_joker')
       || ' per joker, came out: ' || (o.seat IS NOT NULL) AS detail
FROM events e
LEFT JOIN (SELECT DISTINCT match_id, deal, seat FROM events WHERE event = 'amerikaans_jokeren.opened') o
  ON o.match_id = e.match_id AND o.deal = e.deal AND o.seat = e.seat
WHERE e.event = 'amerikaans_jokeren.joker_penalty'
  AND json_extract(e.data, '$.per_joker')::INTEGER <> CASE WHEN o.seat IS NULL THEN 10 ELSE 25 END;

-- invariant: amerikaans_jokeren_winner_scores_zero
-- The player who goes out scores 0 for the deal and nobody scores below 0.
SELECT e.match_id, 'deal ' || e.deal || ': winner seat ' || e.seat || ' has deal row '
       || m.sheet[e.deal]::VARCHAR AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'amerikaans_jokeren.went_out' AND e.deal <= len(m.sheet)
  AND (m.sheet[e.deal][e.seat + 1] <> 0 OR list_min(m.sheet[e.deal]) < 0);

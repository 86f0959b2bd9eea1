-- Family file of Jokeren (jokeren_nl, jokeren_drift): the checks the two rule sets share.

-- invariant: {game}_not_out_before_everyone_played
-- Going out is allowed from the dealer's first turn on: before the went_out event the deal holds at
-- least one draw (a turn) per player.
SELECT e.match_id, 'deal ' || e.deal || ': seat ' || e.seat || ' went out after only ' || count(mv.ply)
       || ' turns of ' || m.players || ' players' AS detail
FROM events e JOIN matches m USING (match_id)
LEFT JOIN moves mv ON mv.match_id = e.match_id AND mv.deal = e.deal AND mv.ply < e.ply
                  AND starts_with(mv.action, 'draw ')
WHERE e.event = '{game}.went_out'
GROUP BY e.match_id, e.deal, e.seat, m.players
HAVING count(mv.ply) < m.players;

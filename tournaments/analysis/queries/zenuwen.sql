-- Zenuwen (Spit / Speed), RULES.md 2.6 (Z1-Z14), checked from the logged moves, events and sheet.
-- Z1: a round is played in ticks; in a tick every seat, in seat order, submits one action (phase
-- 'play'), so the k-th 'play' move of a deal (from 0) is seat k mod players's, and the tick's last
-- submission is the ply at which the tick's rule events are logged.

-- setup
CREATE OR REPLACE TEMP VIEW zen_ticks AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, mv.action, m.players,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv JOIN matches m USING (match_id)
WHERE mv.game = 'zenuwen' AND mv.phase = 'play';

CREATE OR REPLACE TEMP VIEW zen_cards AS
SELECT match_id, players,
       52 * coalesce(json_extract(options, '$.packs')::INTEGER, CASE WHEN players = 2 THEN 1 ELSE 2 END)
       AS cards,
       sheet, scores, ranking, engine_ranking, deals_played, max_deals
FROM matches WHERE game = 'zenuwen';

-- invariant: zenuwen_z1_seat_order_within_a_tick
-- Z1/X2: every seat submits exactly one action per tick, in seat order 0, 1, ..., n-1.
SELECT match_id, 'deal ' || deal || ' ply ' || ply || ': seat ' || seat || ' submitted as the '
       || (k % players) || '-th seat of tick ' || (k // players) || ' (' || action || ')' AS detail
FROM zen_ticks WHERE seat <> k % players;

-- invariant: zenuwen_z1_race_conflict_lost_to_an_earlier_play
-- Z1: a centre play fails only when another seat, earlier in that tick's priority order, played onto
-- the same centre pile in the same tick; the failed play is the loser's submission of that tick.
SELECT e.match_id, 'deal ' || e.deal || ' ply ' || e.ply || ': race_conflict ' || e.data
       || ' without the matching plays in that tick' AS detail
FROM events e
WHERE e.event = 'zenuwen.race_conflict' AND (
      json_extract(e.data, '$.winner') IS NULL
   OR json_extract(e.data, '$.winner')::INTEGER = e.seat
   OR NOT EXISTS (SELECT 1 FROM zen_ticks t JOIN zen_ticks last ON last.match_id = t.match_id
                  AND last.deal = t.deal AND last.ply = e.ply AND t.k // t.players = last.k // last.players
                  WHERE t.match_id = e.match_id AND t.deal = e.deal
                    AND t.seat = json_extract(e.data, '$.winner')::INTEGER
                    AND starts_with(t.action, 'play ')
                    AND split_part(t.action, ' ', 3) = json_extract(e.data, '$.pile')::VARCHAR)
   OR NOT EXISTS (SELECT 1 FROM zen_ticks t JOIN zen_ticks last ON last.match_id = t.match_id
                  AND last.deal = t.deal AND last.ply = e.ply AND t.k // t.players = last.k // last.players
                  WHERE t.match_id = e.match_id AND t.deal = e.deal AND t.seat = e.seat
                    AND split_part(split_part(t.action, ' ', 2), '/', 1) = json_extract_string(e.data, '$.card')
                    AND split_part(t.action, ' ', 3) = json_extract(e.data, '$.pile')::VARCHAR));

-- invariant: zenuwen_z13_cards_conserved_and_scores_are_cards_held
-- Z13: after every round the cards held add up to the pack(s) in play (52, or 104 with two packs),
-- and the match's scores are the cards held after its last round.
SELECT match_id, 'sheet ' || sheet::VARCHAR || ' with ' || cards || ' cards in play; scores '
       || scores::VARCHAR AS detail
FROM zen_cards
WHERE len(sheet) <> deals_played
   OR list_sum(sheet[len(sheet)]) <> cards
   OR sheet[len(sheet)] <> scores
   OR len(list_filter(sheet, r -> list_sum(r) <> cards)) > 0;

-- invariant: zenuwen_z13_gejast_winner_holds_nothing
-- Z13: the match ends early only when a seat holds no cards after the pile-taking; that seat wins
-- alone (match_won_gejast).  Without it the match ran to max_deals.
SELECT z.match_id, 'deals ' || z.deals_played || coalesce(' of max ' || z.max_deals, '') || ', scores '
       || z.scores::VARCHAR || ', engine ranking ' || z.engine_ranking::VARCHAR
       || ', gejast event: ' || coalesce(e.data, 'none') AS detail
FROM zen_cards z LEFT JOIN (SELECT match_id, seat, data FROM events WHERE event = 'zenuwen.match_won_gejast') e
  USING (match_id)
WHERE (e.match_id IS NULL AND (list_min(z.scores) = 0 OR z.max_deals IS NULL OR z.deals_played <> z.max_deals))
   OR (e.match_id IS NOT NULL AND (z.scores[e.seat + 1] <> 0 OR z.engine_ranking[e.seat + 1] <> 1
       OR len(list_filter(z.engine_ranking, r -> r = 1)) <> 1));

-- invariant: zenuwen_z4_one_round_end_per_deal
-- Z4/Z9/Z11: every deal (round) ends exactly once: one round_won and one pile_choice, by the round
-- winner or (variant slap) by the slap winner; 'pile k' names a centre pile 1..players.
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(w.n, 0) || ' round_won, ' || coalesce(c.n, 0)
       || ' pile_choice events' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'zenuwen') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events WHERE event = 'zenuwen.round_won' GROUP BY ALL) w
  ON w.match_id = d.match_id AND w.deal = d.deal
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events WHERE event = 'zenuwen.pile_choice' GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'zenuwen' AND (coalesce(w.n, 0) <> 1 OR coalesce(c.n, 0) <> 1)
UNION ALL
SELECT mv.match_id, 'deal ' || mv.deal || ' ply ' || mv.ply || ': ' || mv.action || ' with ' || m.players
       || ' players' AS detail
FROM moves mv JOIN matches m USING (match_id)
WHERE mv.game = 'zenuwen' AND starts_with(mv.action, 'pile ')
  AND (TRY_CAST(split_part(mv.action, ' ', 2) AS INTEGER) NOT BETWEEN 1 AND m.players
       OR mv.phase NOT IN ('choose', 'slap'));

-- invariant: zenuwen_z14_take_at_most_three
-- Z14: a seat takes its layout into its hand only with 1-3 layout cards left.
SELECT match_id, 'deal ' || deal || ' ply ' || ply || ': took_last_three_in_hand ' || data AS detail
FROM events
WHERE event = 'zenuwen.took_last_three_in_hand'
  AND json_extract(data, '$.cards')::INTEGER NOT BETWEEN 1 AND 3;

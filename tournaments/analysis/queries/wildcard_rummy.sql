-- Wildcard Rummy, RULES.md 2.24 (WR1-WR8), checked from the logged rule events.

-- invariant: wildcard_rummy_one_end_per_deal
-- Every deal ends exactly once: a rummy, or no winner when no stock can be formed (X7).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'wildcard_rummy') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('wildcard_rummy.rummy_declared', 'wildcard_rummy.deal_without_winner') GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'wildcard_rummy' AND coalesce(c.n, 0) <> 1;

-- invariant: wildcard_rummy_wr7_winner_melds_everything
-- WR7: the player who declares rummy has every card he keeps in melds (no penalty of his own).
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' declared rummy with penalties '
       || json_extract(data, '$.penalties') AS detail
FROM events WHERE event = 'wildcard_rummy.rummy_declared'
  AND (json_extract(data, '$.penalties')->>seat)::INTEGER <> 0;

-- invariant: wildcard_rummy_penalty_is_the_others_unmelded_cards
-- The winner collects the sum of the other players' penalties (WR3, WR4), nothing else.
SELECT p.match_id, 'deal ' || p.deal || ': collected ' || json_extract(p.data, '$.points') || ' of penalties '
       || json_extract(r.data, '$.penalties') AS detail
FROM (SELECT * FROM events WHERE event = 'wildcard_rummy.penalty_collected') p
JOIN (SELECT * FROM events WHERE event = 'wildcard_rummy.rummy_declared') r USING (match_id, deal)
WHERE p.seat <> r.seat OR json_extract(p.data, '$.points')::INTEGER <>
      list_sum(json_extract(r.data, '$.penalties')::INTEGER[]);

-- invariant: wildcard_rummy_wr8_wild_two_only_with_a_rummy
-- wild_two_used is reported only for the seat that declared rummy in that deal.
SELECT w.match_id, 'deal ' || w.deal || ': wild_two_used for seat ' || w.seat || ' without its rummy' AS detail
FROM (SELECT * FROM events WHERE event = 'wildcard_rummy.wild_two_used') w
LEFT JOIN (SELECT * FROM events WHERE event = 'wildcard_rummy.rummy_declared') r
  ON r.match_id = w.match_id AND r.deal = w.deal AND r.seat = w.seat
WHERE r.match_id IS NULL;

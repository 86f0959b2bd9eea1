-- Cincinnati Rummy, RULES.md 2.28 (CR1-CR3), checked from the logged rule events.

-- invariant: cincinnati_rummy_one_end_per_deal
-- Every deal ends exactly once: a player going out all at once, or no winner when no stock can be formed (X7).
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM moves WHERE game = 'cincinnati_rummy') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('cincinnati_rummy.went_out_all_at_once', 'cincinnati_rummy.deal_without_winner')
           GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'cincinnati_rummy' AND coalesce(c.n, 0) <> 1;

-- invariant: cincinnati_rummy_out_all_at_once
-- Going out only all at once: every card the winner keeps is in a combination.
SELECT match_id, 'deal ' || deal || ': seat ' || seat || ' went out with unmelded '
       || json_extract(data, '$.deadwood_cards') AS detail
FROM events WHERE event = 'cincinnati_rummy.went_out_all_at_once'
  AND json_array_length(json_extract(data, '$.deadwood_cards') -> seat) <> 0;

-- invariant: cincinnati_rummy_cr1_combination_points
-- CR1 (default scoring): the winner scores his kept cards: pips face value, T J Q K 10, A 11, joker 15.
SELECT e.match_id, 'deal ' || e.deal || ': scored ' || json_extract(e.data, '$.points') || ' for '
       || (json_extract(e.data, '$.hands') -> e.seat) AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'cincinnati_rummy.went_out_all_at_once'
  AND coalesce(json_extract_string(m.options, '$.scoring'), 'combinations') = 'combinations'
  AND json_extract(e.data, '$.points')::INTEGER <> list_sum(list_transform(
        (json_extract(e.data, '$.hands') -> e.seat)::VARCHAR[],
        t -> CASE WHEN t = 'JK' THEN 15 WHEN t[1] = 'A' THEN 11 WHEN t[1] IN ('T', 'J', 'Q', 'K') THEN 10
                  ELSE t[1]::INTEGER END));

-- invariant: cincinnati_rummy_stock_flipped_keeps_the_top_discard
-- X3: a re-formed stock holds the pile but its top card, so it is never empty.
SELECT match_id, 'deal ' || deal || ': stock_flipped ' || data AS detail
FROM events WHERE event = 'cincinnati_rummy.stock_flipped' AND json_extract(data, '$.size')::INTEGER < 1;

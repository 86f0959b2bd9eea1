-- Tonk, RULES.md 2.22 (T1-T13), checked from the logged rule events and actions.

-- invariant: tonk_stakes_sum_to_zero
-- Stakes change hands: every deal's transfers add up to zero for the table (each is one payment).
SELECT match_id, 'deal ' || deal || ': a stake transfer from seat ' || seat || ' to itself or of '
       || json_extract(data, '$.n') AS detail
FROM events WHERE event = 'tonk.stake_transfer'
  AND (json_extract(data, '$.to')::INTEGER = seat OR json_extract(data, '$.n')::INTEGER <= 0);

-- invariant: tonk_one_end_per_deal
-- Every deal ends exactly once: dealt tonk, several tonks, tonk out, out by discard, drop or stock exhausted.
SELECT m.match_id, 'deal ' || d.deal || ': ' || coalesce(c.n, 0) || ' deal endings' AS detail
FROM matches m JOIN (SELECT DISTINCT match_id, deal FROM events WHERE game = 'tonk') d USING (match_id)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM events
           WHERE event IN ('tonk.dealt_tonk', 'tonk.multiple_tonk_redeal', 'tonk.tonk_out', 'tonk.out_by_discard',
                           'tonk.drop', 'tonk.stock_exhausted') GROUP BY ALL) c
  ON c.match_id = d.match_id AND c.deal = d.deal
WHERE m.game = 'tonk' AND coalesce(c.n, 0) <> 1;

-- invariant: tonk_t2_drop_before_drawing
-- T2: a drop (call) is the first action of the dropper's turn: the previous move was another seat's discard
-- (or the deal had just begun).
SELECT k.match_id, 'deal ' || k.deal || ' ply ' || k.ply || ': seat ' || k.seat || ' dropped after '
       || coalesce(p.action, '?') AS detail
FROM moves k LEFT JOIN moves p ON p.match_id = k.match_id AND p.ply = k.ply - 1
WHERE k.game = 'tonk' AND k.action = 'call' AND p.deal = k.deal AND NOT starts_with(p.action, 'discard');

-- invariant: tonk_t13_drop_won_only_strictly_lowest
-- T3/T13: a drop is won exactly when the dropper's count is strictly below every other player's.
SELECT match_id, 'deal ' || deal || ': drop ' || data AS detail
FROM (SELECT *, json_extract(data, '$.counts')::INTEGER[] AS counts, json_extract(data, '$.count')::INTEGER AS c,
             json_extract_string(data, '$.result') AS res
      FROM events WHERE event = 'tonk.drop')
WHERE (res = 'won') <> (len(list_filter(counts, x -> x <= c)) = 1);

-- invariant: tonk_t9_dealt_tonk_at_least_50
-- T9: a dealt tonk holds 50 points or more (49 with the option).
SELECT e.match_id, 'deal ' || e.deal || ': dealt tonk with ' || json_extract(e.data, '$.points') AS detail
FROM events e JOIN matches m USING (match_id)
WHERE e.event = 'tonk.dealt_tonk'
  AND json_extract(e.data, '$.points')::INTEGER < coalesce(json_extract(m.options, '$.tonk_min')::INTEGER, 50);

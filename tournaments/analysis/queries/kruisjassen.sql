-- Kruisjassen, RULES.md 2.13 (K1-K18), checked from the actions and events.
-- A deal may end before its 32 cards are played (ik dek, K1), so "held later" checks use the
-- cards the seat still played in the same deal.  Trump comes from the trump_turned event.
-- Card orders: the engine's card tables (_kruisjas.sql, _tricks.sql).

-- include: _kruisjas.sql p=kj

-- invariant: kruisjassen_trump_turned_once
-- Every deal that has plays turned exactly one trump card.
SELECT p.match_id, 'deal ' || p.deal || ': ' || coalesce(t.n, 0) || ' trump_turned events' AS detail
FROM (SELECT DISTINCT match_id, deal FROM kj_plays) p
LEFT JOIN kj_trump t USING (match_id, deal)
WHERE coalesce(t.n, 0) <> 1;

-- invariant: kruisjassen_cards_once_per_deal
-- A deal plays at most the 32 cards, each at most once.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card) || ' distinct cards'
       AS detail
FROM kj_plays GROUP BY match_id, deal
HAVING count(*) > 32 OR count(*) <> count(DISTINCT card);

-- invariant: kruisjassen_k1_ik_dek_at_100
-- K1: ik dek is said for a side at 100 or more, at most once per deal.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' ik_dek events, points '
       || string_agg(json_extract_string(data, '$.points'), ', ') AS detail
FROM events WHERE event = 'kruisjassen.ik_dek'
GROUP BY match_id, deal
HAVING count(*) > 1 OR min(json_extract(data, '$.points')::INTEGER) < 100;

-- include: _kruisjas_play.sql p=kj

-- include: _partner_scores.sql check=k17_scores_partners_equal

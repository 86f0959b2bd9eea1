-- Kruisjassen, RULES.md 2.13 (K1-K18), checked from the actions and events.
-- A deal may end before its 32 cards are played (ik dek, K1), so "held later" checks use the
-- cards the seat still played in the same deal.  Trump comes from the trump_turned event.
-- Trump order J 9 A K Q 10 8 7; plain order A K Q J 10 9 8 7 (10 low).

-- setup
CREATE OR REPLACE TEMP VIEW kj_trump AS
SELECT match_id, deal, any_value(json_extract_string(data, '$.suit')) AS trump, count(*) AS n
FROM events WHERE event = 'kruisjassen.trump_turned' GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW kj_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, substr(mv.action, 6, 1) AS r, t.trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN kj_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
WHERE mv.game = 'kruisjassen' AND starts_with(mv.action, 'play ');

CREATE OR REPLACE TEMP VIEW kj_tricks AS
SELECT *,
       max(val) OVER (PARTITION BY match_id, deal, trick ORDER BY k
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS best_before
FROM (SELECT *, CASE WHEN suit = trump THEN 100 + position(r IN '78TQKA9J')
                     WHEN suit = led THEN position(r IN '789TJQKA') ELSE 0 END AS val
      FROM (SELECT *, k // 4 AS trick, k % 4 AS pos,
                   first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
            FROM kj_plays));

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

-- invariant: kruisjassen_follow_suit
-- Follow suit if able (trumping instead is allowed on a plain lead): a seat that played neither
-- the led suit nor a trump plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM kj_tricks t
WHERE t.pos > 0 AND t.suit <> t.led AND (t.suit <> t.trump OR t.led = t.trump)
  AND EXISTS (SELECT 1 FROM kj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led);

-- invariant: kruisjassen_k6_no_undertrump
-- K6: on a plain lead no trump below a trump already in the trick, unless only trumps are held
-- (so a seat that undertrumped plays only trumps for the rest of the deal).
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' undertrumped with '
       || t.card || ' while holding a non-trump' AS detail
FROM kj_tricks t
WHERE t.pos > 0 AND t.suit = t.trump AND t.led <> t.trump AND t.best_before > 100 AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM kj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit <> p.trump);

-- invariant: kruisjassen_k17_scores_partners_equal
-- K17: the match scores are the sums of the score sheet, and partners score the same.
SELECT match_id, 'scores ' || scores::VARCHAR || ' vs sheet sums' AS detail
FROM matches
WHERE game = 'kruisjassen'
  AND (scores[1] <> scores[3] OR scores[2] <> scores[4]
       OR scores[1] <> (SELECT coalesce(sum(x[1]), 0) FROM unnest(sheet) AS u(x))
       OR scores[2] <> (SELECT coalesce(sum(x[2]), 0) FROM unnest(sheet) AS u(x)));

-- invariant: kruisjassen_k1_ik_dek_at_100
-- K1: ik dek is said for a side at 100 or more, at most once per deal.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' ik_dek events, points '
       || string_agg(json_extract_string(data, '$.points'), ', ') AS detail
FROM events WHERE event = 'kruisjassen.ik_dek'
GROUP BY match_id, deal
HAVING count(*) > 1 OR min(json_extract(data, '$.points')::INTEGER) < 100;

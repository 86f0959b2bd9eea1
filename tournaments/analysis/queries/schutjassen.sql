-- Schutjassen, RULES.md 2.12 (S1-S10) with Kruisjassen's play (K6, K7), checked from the actions
-- and events.  A deal may end before its 32 cards are played (contract made, concession), so "held
-- later" checks use the cards the seat still played in the same deal.  Trump: trump_turned event.

-- setup
CREATE OR REPLACE TEMP VIEW sj_trump AS
SELECT match_id, deal, any_value(json_extract_string(data, '$.suit')) AS trump, count(*) AS n
FROM events WHERE event = 'schutjassen.trump_turned' GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW sj_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, substr(mv.action, 6, 1) AS r, t.trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN sj_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
WHERE mv.game = 'schutjassen' AND starts_with(mv.action, 'play ');

CREATE OR REPLACE TEMP VIEW sj_tricks AS
SELECT *,
       max(val) OVER (PARTITION BY match_id, deal, trick ORDER BY k
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS best_before
FROM (SELECT *, CASE WHEN suit = trump THEN 100 + position(r IN '78TQKA9J')
                     WHEN suit = led THEN position(r IN '789TJQKA') ELSE 0 END AS val
      FROM (SELECT *, k // 4 AS trick, k % 4 AS pos,
                   first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
            FROM sj_plays));

CREATE OR REPLACE TEMP VIEW sj_bids AS
SELECT match_id, deal, count(*) FILTER (WHERE action = 'declare schut') AS schuts,
       count(*) FILTER (WHERE action = 'declare herschut') AS herschuts,
       count(*) FILTER (WHERE action = 'declare tout') AS touts,
       count(*) FILTER (WHERE starts_with(action, 'play ')) AS plays
FROM moves WHERE game = 'schutjassen' GROUP BY ALL;

-- invariant: schutjassen_s1_one_schut_before_play
-- S1/S8: a deal with plays has exactly one Schut; at most one Herschut and one Tout, and no Tout
-- without a Herschut.
SELECT match_id, 'deal ' || deal || ': ' || schuts || ' schut, ' || herschuts || ' herschut, ' || touts
       || ' tout with ' || plays || ' plays' AS detail
FROM sj_bids
WHERE (plays > 0 AND schuts <> 1) OR herschuts > 1 OR touts > 1 OR touts > herschuts;

-- invariant: schutjassen_follow_suit
-- Follow suit if able (trumping instead is allowed on a plain lead): a seat that played neither
-- the led suit nor a trump plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM sj_tricks t
WHERE t.pos > 0 AND t.suit <> t.led AND (t.suit <> t.trump OR t.led = t.trump)
  AND EXISTS (SELECT 1 FROM sj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led);

-- invariant: schutjassen_k6_no_undertrump
-- K6: on a plain lead no trump below a trump already in the trick, unless only trumps are held.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' undertrumped with '
       || t.card || ' while holding a non-trump' AS detail
FROM sj_tricks t
WHERE t.pos > 0 AND t.suit = t.trump AND t.led <> t.trump AND t.best_before > 100 AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM sj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal
              AND p.seat = t.seat AND p.k > t.k AND p.suit <> p.trump);

-- invariant: schutjassen_contract_values
-- The score table: a settled contract is worth 100, 200, 300, 400, 500 or 900, and Tout is 900.
SELECT e.match_id, 'deal ' || e.deal || ': ' || e.event || ' worth ' || json_extract_string(e.data, '$.value')
       AS detail
FROM events e LEFT JOIN sj_bids b ON b.match_id = e.match_id AND b.deal = e.deal
WHERE e.event IN ('schutjassen.contract_made', 'schutjassen.contract_failed')
  AND (json_extract(e.data, '$.value')::INTEGER NOT IN (100, 200, 300, 400, 500, 900)
       OR (coalesce(b.touts, 0) > 0) <> (json_extract(e.data, '$.value')::INTEGER = 900));

-- invariant: schutjassen_scores_partners_equal
-- The match scores are the sums of the score sheet, and partners score the same.
SELECT match_id, 'scores ' || scores::VARCHAR || ' vs sheet sums' AS detail
FROM matches
WHERE game = 'schutjassen'
  AND (scores[1] <> scores[3] OR scores[2] <> scores[4]
       OR scores[1] <> (SELECT coalesce(sum(x[1]), 0) FROM unnest(sheet) AS u(x))
       OR scores[2] <> (SELECT coalesce(sum(x[2]), 0) FROM unnest(sheet) AS u(x)));

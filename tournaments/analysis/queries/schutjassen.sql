-- Schutjassen, RULES.md 2.12 (S1-S10) with Kruisjassen's play (K6, K7), checked from the actions
-- and events.  A deal may end before its 32 cards are played (contract made, concession), so "held
-- later" checks use the cards the seat still played in the same deal.  Trump: trump_turned event.

-- include: _kruisjas.sql p=sj

-- setup
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

-- invariant: schutjassen_contract_values
-- The score table: a settled contract is worth 100, 200, 300, 400, 500 or 900, and Tout is 900.
SELECT e.match_id, 'deal ' || e.deal || ': ' || e.event || ' worth ' || json_extract_string(e.data, '$.value')
       AS detail
FROM events e LEFT JOIN sj_bids b ON b.match_id = e.match_id AND b.deal = e.deal
WHERE e.event IN ('schutjassen.contract_made', 'schutjassen.contract_failed')
  AND (json_extract(e.data, '$.value')::INTEGER NOT IN (100, 200, 300, 400, 500, 900)
       OR (coalesce(b.touts, 0) > 0) <> (json_extract(e.data, '$.value')::INTEGER = 900));

-- include: _kruisjas_play.sql p=sj

-- include: _partner_scores.sql check=scores_partners_equal

-- Manille Muette, RULES.md (32 cards; the 10 is the manille), checked from the logged actions (the manille family's common rules).
-- Every card is played in a deal, so a seat's holding at a trick is what it plays from then on.

-- setup
CREATE OR REPLACE TEMP VIEW mm_plays AS
SELECT match_id, deal, ply, seat, substr(action, 6, 2) AS card, substr(action, 7, 1) AS suit,
       CASE substr(action, 6, 1) WHEN 'T' THEN 5 WHEN 'A' THEN 4 WHEN 'K' THEN 3 WHEN 'Q' THEN 2
            WHEN 'J' THEN 1 ELSE 0 END AS pts,
       row_number() OVER (PARTITION BY match_id, deal ORDER BY ply) - 1 AS k
FROM moves WHERE game = 'manille_muette' AND starts_with(action, 'play ') AND length(action) = 7;

CREATE OR REPLACE TEMP VIEW mm_tricks AS
SELECT *, k // 4 AS trick, k % 4 AS pos,
       first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
FROM mm_plays;

CREATE OR REPLACE TEMP VIEW mm_last AS
SELECT match_id, deal, seat, suit, max(k) AS last_k FROM mm_plays GROUP BY ALL;

-- invariant: manille_muette_whole_deal
-- A deal plays the 32 cards once each, worth 60 card points (10 5, A 4, K 3, Q 2, J 1).
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards worth ' || sum(pts) || ', not 32 cards and 60 points' AS detail
FROM mm_plays GROUP BY match_id, deal
HAVING count(*) <> 32 OR count(DISTINCT card) <> 32 OR sum(pts) <> 60;

-- invariant: manille_muette_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM mm_tricks t JOIN mm_last l
  ON l.match_id = t.match_id AND l.deal = t.deal AND l.seat = t.seat AND l.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND l.last_k > t.k;

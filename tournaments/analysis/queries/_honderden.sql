-- Family file of Honderden (honderden, honderden_3p): the moves and plays of the matches in the
-- game file's view {p}_scope (match_id: the matches whose tricks follow the game's own rules), their
-- tricks of {players} cards, and the first-trick meld rule.

-- setup
CREATE OR REPLACE TEMP VIEW {p}_moves AS
SELECT match_id, deal, ply, seat, action,
       sum(CASE WHEN starts_with(action, 'play ') THEN 1 ELSE 0 END)
           OVER (PARTITION BY match_id, deal ORDER BY ply ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
           AS plays_before
FROM moves WHERE game = '{game}';

CREATE OR REPLACE TEMP VIEW {p}_plays AS
SELECT match_id, deal, ply, seat, substr(action, 6, 2) AS card, substr(action, 7, 1) AS suit,
       row_number() OVER (PARTITION BY match_id, deal ORDER BY ply) - 1 AS k
FROM moves WHERE game = '{game}' AND starts_with(action, 'play ') AND match_id IN (SELECT match_id FROM {p}_scope);

CREATE OR REPLACE TEMP VIEW {p}_tricks AS
SELECT *, k // {players} AS trick, k % {players} AS pos,
       first_value(suit) OVER (PARTITION BY match_id, deal, k // {players} ORDER BY k) AS led
FROM {p}_plays;

-- invariant: {game}_melds_only_in_the_first_trick
-- HO10: melds (declare with cards) are announced in trick 1 only, before the declarer plays his card.
SELECT m.match_id, 'deal ' || m.deal || ' ply ' || m.ply || ': seat ' || m.seat || ' ' || m.action
       || ' after ' || m.plays_before || ' plays' AS detail
FROM {p}_moves m
WHERE m.match_id IN (SELECT match_id FROM {p}_scope)
  AND starts_with(m.action, 'declare ') AND m.action <> 'declare dek'
  AND (coalesce(m.plays_before, 0) >= {players}
       OR EXISTS (SELECT 1 FROM {p}_plays p WHERE p.match_id = m.match_id AND p.deal = m.deal
                  AND p.seat = m.seat AND p.ply < m.ply));

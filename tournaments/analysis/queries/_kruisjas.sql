-- Family file of the four-hand jass games with a turned trump (kruisjassen, schutjassen, grevjas):
-- the plays with the deal's trump (from the trump_turned event) and their trick strengths from the
-- engine's card tables (_tricks.sql).  A deal may end before its 32 cards are played, so "held
-- later" checks use the cards the seat still played in the same deal.

-- setup
CREATE OR REPLACE TEMP VIEW {p}_trump AS
SELECT match_id, deal, any_value(json_extract_string(data, '$.suit')) AS trump, count(*) AS n
FROM events WHERE event = '{game}.trump_turned' GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW {p}_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, substr(mv.action, 6, 1) AS r, t.trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN {p}_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
WHERE mv.game = '{game}' AND starts_with(mv.action, 'play ');

-- include: _tricks.sql players=4

-- Manille for 2 to 7 players (each for himself, free trump), RULES.md 2.10 (Q1-Q6) and the manille
-- family rule, checked from the logged actions and events.  After the bidding and the declarer's
-- exchange every hand is played out, so a seat's holding at a trick is what it plays from then on; a
-- trick has one card per player.  Card order and points: the engine's card tables (card_ranks).

-- setup
CREATE OR REPLACE TEMP VIEW m27_trump AS
SELECT match_id, deal, any_value(substr(action, 7, 1)) AS trump, count(*) AS n, min(ply) AS ply
FROM moves WHERE game = 'manille_2_7' AND starts_with(action, 'trump ') GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW m27_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card, substr(mv.action, 7, 1) AS suit,
       t.trump, m.players, cr.plain_points AS pts,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv JOIN matches m ON m.match_id = mv.match_id
LEFT JOIN m27_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
LEFT JOIN card_ranks cr ON cr.game = mv.game AND cr.card = substr(mv.action, 6, 2)
WHERE mv.game = 'manille_2_7' AND starts_with(mv.action, 'play ');

-- include: _tricks.sql p=m27 players=players

-- setup
CREATE OR REPLACE TEMP VIEW m27_last AS
SELECT match_id, deal, seat, suit, max(k) AS last_k FROM m27_plays GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW m27_trick_result AS
SELECT match_id, deal, trick, arg_max(seat, val) AS taker, sum(pts) AS pts FROM m27_tricks GROUP BY ALL;

-- invariant: manille_2_7_q3_one_trump_before_play
-- Q3: a deal that is played has exactly one `trump X`, named by the declarer before the first card.
SELECT p.match_id, 'deal ' || p.deal || ': ' || coalesce(t.n, 0) || ' trump actions, the first at ply '
       || coalesce(t.ply::VARCHAR, '-') || ', first card at ply ' || p.first_play AS detail
FROM (SELECT match_id, deal, min(ply) AS first_play FROM m27_plays GROUP BY ALL) p
LEFT JOIN m27_trump t USING (match_id, deal)
WHERE coalesce(t.n, 0) <> 1 OR t.ply > p.first_play;

-- invariant: manille_2_7_whole_tricks
-- A deal plays distinct cards of the deck (at most all of it), one per player in every trick.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards by ' || any_value(players) || ' players' AS detail
FROM m27_plays GROUP BY match_id, deal
HAVING count(*) <> count(DISTINCT card) OR count(*) % any_value(players) <> 0
    OR count(*) > (SELECT count(*) FROM card_ranks WHERE game = 'manille_2_7')
    OR count(*) FILTER (WHERE pts IS NULL) > 0;

-- invariant: manille_2_7_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM m27_tricks t JOIN m27_last l
  ON l.match_id = t.match_id AND l.deal = t.deal AND l.seat = t.seat AND l.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND l.last_k > t.k;

-- invariant: manille_2_7_q1_contract_points
-- Q1: the declarer's points are the card points of the tricks he took plus one per trick (trick
-- winners from the card tables); the target is 21 with 2-4 players, 15 with 5-7; made iff reached.
WITH res AS (SELECT match_id, deal, seat, event, json_extract(data, '$.points')::INTEGER AS points,
                    json_extract(data, '$.target')::INTEGER AS target
             FROM events WHERE event IN ('manille_2_7.contract_made', 'manille_2_7.contract_failed')),
won AS (SELECT r.match_id, r.deal, r.seat, coalesce(sum(t.pts + 1), 0) AS got
        FROM res r LEFT JOIN m27_trick_result t ON t.match_id = r.match_id AND t.deal = r.deal AND t.taker = r.seat
        GROUP BY ALL)
SELECT r.match_id, 'deal ' || r.deal || ': declarer seat ' || r.seat || ' ' || r.event || ' with ' || r.points
       || ' points (target ' || r.target || ') but took ' || w.got || ' in tricks' AS detail
FROM res r JOIN won w USING (match_id, deal, seat) JOIN matches m ON m.match_id = r.match_id
WHERE r.points <> w.got OR r.target <> CASE WHEN m.players <= 4 THEN 21 ELSE 15 END
   OR (r.event = 'manille_2_7.contract_made') <> (r.points >= r.target);

-- invariant: manille_2_7_q4_only_the_declarer_scores
-- Q4: a deal's row books the contract's score for the declarer and nothing for the others (a deal
-- that everyone passed books nothing at all).
WITH deal_rows AS (SELECT m.match_id, d.i AS deal, m.sheet[d.i] AS row
                   FROM matches m, range(1, 101) d(i) WHERE m.game = 'manille_2_7' AND d.i <= len(m.sheet)),
res AS (SELECT match_id, deal, seat, event, json_extract(data, '$.score')::DOUBLE AS score
        FROM events WHERE event IN ('manille_2_7.contract_made', 'manille_2_7.contract_failed'))
SELECT r.match_id, 'deal ' || r.deal || ': row ' || r.row::VARCHAR
       || coalesce(' for ' || e.event || ' of seat ' || e.seat || ' scoring ' || e.score, ' without a contract')
       AS detail
FROM deal_rows r LEFT JOIN res e ON e.match_id = r.match_id AND e.deal = r.deal
WHERE list_sum(list_transform(r.row, x -> abs(x))) <> coalesce(abs(e.score), 0)
   OR (e.match_id IS NOT NULL AND r.row[e.seat + 1] <> e.score);

-- Manillen (2 against 2), RULES.md 2.4 (M1-M7) and the manille family rule, checked from the actions.
-- All 32 cards are played each deal, so a seat's holding at a trick is what it plays from then on.
-- Ranks and points (10 (manille) > A > K > Q > J > 9 > 8 > 7; 10=5, A=4, K=3, Q=2, J=1): card_ranks.

-- setup
CREATE OR REPLACE TEMP VIEW mn_trump AS
SELECT match_id, deal, any_value(substr(action, 7, 1)) AS trump, count(*) AS n
FROM moves WHERE game = 'manillen' AND starts_with(action, 'trump ') GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW mn_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, cr.plain_rank AS rank, cr.plain_points AS pts, t.trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN mn_trump t ON t.match_id = mv.match_id AND t.deal = mv.deal
LEFT JOIN card_ranks cr ON cr.game = mv.game AND cr.card = substr(mv.action, 6, 2)
WHERE mv.game = 'manillen' AND starts_with(mv.action, 'play ');

-- each play with the trick's led suit and the winning card before it (value: trumps above the led suit)
CREATE OR REPLACE TEMP VIEW mn_tricks AS
SELECT *,
       max(val) OVER (PARTITION BY match_id, deal, trick ORDER BY k
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS best_before,
       arg_max(seat, val) OVER (PARTITION BY match_id, deal, trick ORDER BY k
                                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS winner_before
FROM (SELECT *, CASE WHEN suit = trump THEN 100 + rank WHEN suit = led THEN rank ELSE 0 END AS val
      FROM (SELECT *, k // 4 AS trick, k % 4 AS pos,
                   first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
            FROM mn_plays));

CREATE OR REPLACE TEMP VIEW mn_last AS
SELECT match_id, deal, seat, suit, max(k) AS last_k FROM mn_plays GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW mn_trick_result AS
SELECT match_id, deal, trick, arg_max(seat, val) AS taker, sum(pts) AS pts, count(*) AS n
FROM mn_tricks GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW mn_deals AS
SELECT r.match_id, r.deal,
       coalesce(sum(r.pts) FILTER (WHERE r.taker % 2 = 0), 0) AS team0,
       coalesce(sum(r.pts) FILTER (WHERE r.taker % 2 = 1), 0) AS team1,
       sum(r.pts) AS total, sum(r.n) AS cards
FROM mn_trick_result r GROUP BY ALL;

-- invariant: manillen_trump_named_once
-- The dealer names one trump per deal, before the first card (M4: a suit, never none).
SELECT p.match_id, 'deal ' || p.deal || ': ' || coalesce(t.n, 0) || ' trump actions' AS detail
FROM (SELECT DISTINCT match_id, deal FROM mn_plays) p
LEFT JOIN mn_trump t USING (match_id, deal)
WHERE coalesce(t.n, 0) <> 1 OR t.trump NOT IN ('C', 'D', 'H', 'S');

-- invariant: manillen_60_points_per_deal
-- A deal plays the 32 cards once each, worth 60 card points.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards worth ' || sum(pts) || ', not 32 cards and 60 points' AS detail
FROM mn_plays GROUP BY match_id, deal
HAVING count(*) <> 32 OR count(DISTINCT card) <> 32 OR sum(pts) <> 60;

-- invariant: manillen_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM mn_tricks t JOIN mn_last l
  ON l.match_id = t.match_id AND l.deal = t.deal AND l.seat = t.seat AND l.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND l.last_k > t.k;

-- invariant: manillen_m1_overtake_forced
-- M1: with an opponent winning by a card of the led suit, a seat following suit beats it if it can.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' under the winning ' || t.led || ' card of seat ' || t.winner_before
       || ' while holding a higher ' || t.led AS detail
FROM mn_tricks t
WHERE t.pos > 0 AND t.suit = t.led AND t.best_before < 100 AND t.winner_before % 2 <> t.seat % 2
  AND t.rank < t.best_before
  AND EXISTS (SELECT 1 FROM mn_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal AND p.seat = t.seat
              AND p.k > t.k AND p.suit = t.led AND p.rank > t.best_before);

-- invariant: manillen_m2_no_losing_trump
-- M2: a seat void in the led suit plays no trump that loses to the winning trump while it holds a non-trump.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' undertrumped with '
       || t.card || ' while holding a non-trump' AS detail
FROM mn_tricks t
WHERE t.pos > 0 AND t.suit = t.trump AND t.led <> t.trump AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM mn_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal AND p.seat = t.seat
              AND p.k > t.k AND p.suit <> p.trump);

-- invariant: manillen_deal_scores
-- The team above 30 scores the excess; 30-30 scores nothing (hand_tie_30_30 fires exactly then);
-- the logged match scores are the teams' sums (not checked in the club format, whose partners change).
WITH opts AS (SELECT match_id, scores,
                     coalesce(json_extract(options, '$.both_teams_score')::BOOLEAN, false) AS both_score,
                     coalesce(json_extract(options, '$.club_rounds')::BOOLEAN, false) AS club
              FROM matches WHERE game = 'manillen'),
deal_rows AS (SELECT d.*, o.both_score, o.club,
                CASE WHEN o.both_score THEN team0 ELSE greatest(team0 - 30, 0) END AS s0,
                CASE WHEN o.both_score THEN team1 ELSE greatest(team1 - 30, 0) END AS s1
         FROM mn_deals d JOIN opts o USING (match_id)),
ties AS (SELECT match_id, deal FROM events WHERE event = 'manillen.hand_tie_30_30'),
tie_bad AS (SELECT coalesce(r.match_id, t.match_id) AS match_id,
                   'deal ' || coalesce(r.deal, t.deal) || ': card points ' || coalesce(r.team0 || '-' || r.team1, '?')
                   || CASE WHEN t.match_id IS NULL THEN ' but no hand_tie_30_30 event'
                           ELSE ' with a hand_tie_30_30 event' END AS detail
            FROM (SELECT * FROM deal_rows WHERE team0 = 30 AND NOT both_score) r
            FULL JOIN ties t ON t.match_id = r.match_id AND t.deal = r.deal
            WHERE r.match_id IS NULL OR t.match_id IS NULL),
sums AS (SELECT match_id, sum(s0) AS a, sum(s1) AS b FROM deal_rows WHERE NOT club GROUP BY ALL),
score_bad AS (SELECT o.match_id, 'logged scores ' || o.scores::VARCHAR || ' but the tricks give team 0 '
                     || s.a || ', team 1 ' || s.b AS detail
              FROM opts o JOIN sums s USING (match_id)
              WHERE o.scores <> [s.a, s.b, s.a, s.b]::DOUBLE[])
SELECT * FROM tie_bad UNION ALL SELECT * FROM score_bad;

-- Jo-Jotte, 2 players: RULES.md 2.14 (JJ1-JJ20), checked from the logged actions and events.
-- 32 cards, 9 each; a deal that reaches play is played out (Nullo deals too, JJ18), so a seat's
-- holding at a trick is what it plays later in that deal.  The contract is the deal's last `trump X`
-- (a `trump none` overcall replaces a suit bid); a Nullo not answered by a Pit is played without trump.
-- Card orders: the engine's card tables (_tricks.sql).

-- setup
CREATE OR REPLACE TEMP VIEW jj_deals AS
SELECT match_id, deal,
       arg_max(substr(action, 7), ply) FILTER (WHERE starts_with(action, 'trump ')) AS contract,
       bool_or(action = 'declare nullo') AS nullo_called,
       bool_or(action = 'declare pit') AS pit,
       count(*) FILTER (WHERE starts_with(action, 'play ')) AS plays
FROM moves WHERE game = 'jo_jotte' GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW jj_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card,
       substr(mv.action, 7, 1) AS suit, substr(mv.action, 6, 1) AS rank,
       CASE WHEN d.nullo_called AND NOT d.pit THEN 'none' ELSE d.contract END AS trump,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv JOIN jj_deals d ON d.match_id = mv.match_id AND d.deal = mv.deal
WHERE mv.game = 'jo_jotte' AND starts_with(mv.action, 'play ');

-- include: _tricks.sql players=2 p=jj

-- invariant: jo_jotte_nine_tricks_per_played_deal
-- JJ18: a deal that reaches play is played out, 18 distinct cards (Nullo deals included).
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards, not 18' AS detail
FROM jj_plays GROUP BY match_id, deal
HAVING count(*) <> 18 OR count(DISTINCT card) <> 18;

-- invariant: jo_jotte_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM jj_tricks t
WHERE t.pos = 1 AND t.suit <> t.led
  AND EXISTS (SELECT 1 FROM jj_plays l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = t.led AND l.k > t.k);

-- invariant: jo_jotte_trump_when_void
-- 003:L246: void in a plain led suit, a seat plays a trump if it holds one.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' discarded '
       || t.card || ' on a ' || t.led || ' lead but still held a trump' AS detail
FROM jj_tricks t
WHERE t.pos = 1 AND t.led <> t.trump AND t.suit <> t.led AND t.suit <> t.trump
  AND EXISTS (SELECT 1 FROM jj_plays l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = l.trump AND l.k > t.k);

-- invariant: jo_jotte_overtrump_on_trump_lead
-- 003:L246: trump led, a seat that plays a lower trump holds no trump above the led one.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' under the led trump but held a higher one' AS detail
FROM jj_tricks t
WHERE t.pos = 1 AND t.led = t.trump AND t.suit = t.trump AND t.val < t.best_before
  AND EXISTS (SELECT 1 FROM jj_tricks l WHERE l.match_id = t.match_id AND l.deal = t.deal
              AND l.seat = t.seat AND l.suit = l.trump AND l.k > t.k AND l.val > t.best_before);

-- invariant: jo_jotte_double_before_the_meld_phase
-- JJ12/JJ14: double (by the opponent) and redouble (by the Speler, after a double) come before any
-- Dix, meld, Nullo or Pit action and before the first card; at most one of each per deal.
WITH a AS (SELECT match_id, deal,
                  count(*) FILTER (WHERE action = 'double') AS dbl,
                  count(*) FILTER (WHERE action = 'redouble') AS rdbl,
                  max(ply) FILTER (WHERE action IN ('double', 'redouble')) AS last_dbl,
                  min(ply) FILTER (WHERE action = 'double') AS first_dbl,
                  min(ply) FILTER (WHERE action = 'redouble') AS first_rdbl,
                  min(ply) FILTER (WHERE starts_with(action, 'declare ') OR starts_with(action, 'play ')) AS later
           FROM moves WHERE game = 'jo_jotte' GROUP BY ALL)
SELECT match_id, 'deal ' || deal || ': ' || dbl || ' double(s), ' || rdbl || ' redouble(s), the last at ply '
       || coalesce(last_dbl::VARCHAR, '-') || ', meld phase or play from ply ' || coalesce(later::VARCHAR, '-') AS detail
FROM a
WHERE dbl > 1 OR rdbl > 1 OR (rdbl = 1 AND (dbl = 0 OR first_rdbl < first_dbl))
   OR (last_dbl IS NOT NULL AND later IS NOT NULL AND last_dbl > later);

-- invariant: jo_jotte_pit_answers_a_nullo
-- JJ14: a Pit is announced only by the Speler answering a Nullo of the same deal, once.
SELECT p.match_id, 'deal ' || p.deal || ' ply ' || p.ply || ': declare pit without an earlier declare nullo' AS detail
FROM moves p
WHERE p.game = 'jo_jotte' AND p.action = 'declare pit'
  AND NOT EXISTS (SELECT 1 FROM moves n WHERE n.game = 'jo_jotte' AND n.match_id = p.match_id
                  AND n.deal = p.deal AND n.action = 'declare nullo' AND n.ply < p.ply AND n.seat <> p.seat);

-- invariant: jo_jotte_rubber_ends_the_match
-- JJ10/JJ19: one rubber_won per match that was not cut short, in its last deal, after that seat's second game_won.
WITH r AS (SELECT match_id, count(*) AS n, max(deal) AS deal, any_value(seat) AS seat
           FROM events WHERE event = 'jo_jotte.rubber_won' GROUP BY match_id),
g AS (SELECT match_id, seat, count(*) AS games FROM events WHERE event = 'jo_jotte.game_won' GROUP BY ALL)
SELECT m.match_id, 'deals_played ' || m.deals_played || ', rubber_won ' || coalesce(r.n, 0) || ' time(s)'
       || coalesce(' in deal ' || r.deal, '') || coalesce(', winner games ' || g.games, '') AS detail
FROM matches m LEFT JOIN r USING (match_id) LEFT JOIN g ON g.match_id = m.match_id AND g.seat = r.seat
WHERE m.game = 'jo_jotte'
  AND (coalesce(r.n, 0) > 1
       OR (r.n = 1 AND (r.deal <> m.deals_played OR coalesce(g.games, 0) <> 2))
       OR (r.n IS NULL AND m.max_deals IS NULL AND m.status = 'ok'));

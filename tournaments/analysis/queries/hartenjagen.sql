-- Hartenjagen (Hearts), RULES.md 2.3 (H1-H6), checked from the logged actions alone.
-- Every card is played in every deal, so a seat's hand at a trick is the set of cards it plays from
-- that trick on: follow-suit, heart-lead and first-trick rules can be checked without the deal.
-- Card order (A high) and penalty points (hearts 1, QS 13): the engine's card tables (card_ranks).

-- setup
CREATE OR REPLACE TEMP VIEW hj_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card, substr(mv.action, 7, 1) AS suit,
       cr.plain_rank AS rank, cr.plain_points AS pts,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN card_ranks cr ON cr.game = mv.game AND cr.card = substr(mv.action, 6, 2)
WHERE mv.game = 'hartenjagen' AND starts_with(mv.action, 'play ');

CREATE OR REPLACE TEMP VIEW hj_tricks AS
SELECT *, k // 4 AS trick, k % 4 AS pos,
       first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
FROM hj_plays;

-- the last position k at which each seat plays each suit in a deal (its holding after that)
CREATE OR REPLACE TEMP VIEW hj_last AS
SELECT match_id, deal, seat, suit, max(k) AS last_k FROM hj_plays GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW hj_trick_result AS
SELECT match_id, deal, trick, arg_max(seat, rank) FILTER (WHERE suit = led) AS taker,
       sum(pts) AS pts, count(*) AS n
FROM hj_tricks GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW hj_deals AS
SELECT match_id, deal,
       [coalesce(sum(pts) FILTER (WHERE taker = 0), 0), coalesce(sum(pts) FILTER (WHERE taker = 1), 0),
        coalesce(sum(pts) FILTER (WHERE taker = 2), 0), coalesce(sum(pts) FILTER (WHERE taker = 3), 0)] AS taken,
       sum(pts) AS total, count(*) AS tricks, sum(n) AS cards
FROM hj_trick_result GROUP BY ALL;

CREATE OR REPLACE TEMP VIEW hj_rows AS
SELECT d.*, m.options,
       CASE WHEN list_contains(d.taken, 26) THEN
            CASE WHEN json_extract_string(m.options, '$.moon_shot') = 'self_minus_26'
                 THEN list_transform(d.taken, x -> CASE WHEN x = 26 THEN -26 ELSE 0 END)
                 ELSE list_transform(d.taken, x -> CASE WHEN x = 26 THEN 0 ELSE 26 END) END
            ELSE d.taken END AS row
FROM hj_deals d JOIN matches m USING (match_id);

-- invariant: hearts_whole_deal
-- A deal plays 13 tricks of 4: the 52 cards, each once.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards, not 52' AS detail
FROM hj_plays GROUP BY match_id, deal HAVING count(*) <> 52 OR count(DISTINCT card) <> 52;

-- invariant: hearts_2c_opens
-- The holder of 2C leads it to the first trick.
SELECT match_id, 'deal ' || deal || ' opened with ' || card || ', not 2C' AS detail
FROM hj_plays WHERE k = 0 AND card <> '2C';

-- invariant: hearts_follow_suit
-- A seat that did not follow the led suit held none of it: it plays no card of that suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led || ' (played at ply '
       || (SELECT p.ply FROM hj_plays p WHERE p.match_id = t.match_id AND p.deal = t.deal AND p.k = l.last_k)
       || ')' AS detail
FROM hj_tricks t JOIN hj_last l
  ON l.match_id = t.match_id AND l.deal = t.deal AND l.seat = t.seat AND l.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND l.last_k > t.k;

-- invariant: hearts_h2_no_heart_lead_before_broken
-- H2: no heart lead before a heart (or QS, with qs_breaks_hearts) was played, unless the leader held only hearts.
WITH opts AS (SELECT match_id, coalesce(json_extract(options, '$.must_break_hearts')::BOOLEAN, true) AS must,
                     coalesce(json_extract(options, '$.qs_breaks_hearts')::BOOLEAN, true) AS qs
              FROM matches WHERE game = 'hartenjagen'),
broken AS (SELECT p.match_id, p.deal, min(p.k) FILTER (WHERE p.suit = 'H' OR (o.qs AND p.card = 'QS')) AS at_k
           FROM hj_plays p JOIN opts o USING (match_id) GROUP BY ALL),
held AS (SELECT match_id, deal, seat, max(last_k) FILTER (WHERE suit <> 'H') AS last_other FROM hj_last GROUP BY ALL)
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' led '
       || t.card || ' before hearts were broken while holding another suit' AS detail
FROM hj_tricks t JOIN opts o USING (match_id) JOIN broken b ON b.match_id = t.match_id AND b.deal = t.deal
JOIN held h ON h.match_id = t.match_id AND h.deal = t.deal AND h.seat = t.seat
WHERE o.must AND t.pos = 0 AND t.suit = 'H' AND b.at_k >= t.k AND h.last_other > t.k;

-- invariant: hearts_h3_no_points_on_first_trick
-- H3: a seat void in clubs plays no heart or QS to the first trick unless it holds nothing else.
WITH opts AS (SELECT match_id, coalesce(json_extract(options, '$.no_pts_on_first_trick')::BOOLEAN, true) AS rule
              FROM matches WHERE game = 'hartenjagen'),
other AS (SELECT match_id, deal, seat, max(k) FILTER (WHERE pts = 0) AS last_free FROM hj_plays GROUP BY ALL)
SELECT t.match_id, 'deal ' || t.deal || ': seat ' || t.seat || ' played ' || t.card
       || ' to the first trick while holding a card without points' AS detail
FROM hj_tricks t JOIN opts o USING (match_id)
JOIN other x ON x.match_id = t.match_id AND x.deal = t.deal AND x.seat = t.seat
WHERE o.rule AND t.trick = 0 AND t.pos > 0 AND t.suit <> 'C' AND t.pts > 0 AND x.last_free > t.k;

-- invariant: hearts_26_or_78_per_deal
-- Each deal's penalties (hearts 1, QS 13) total 26; a deal's score row sums to 26, or 78 after a moon shot
-- (-26 with moon_shot = self_minus_26).  The logged totals must be 26 a deal plus 52 a moon shot.
WITH moons AS (SELECT match_id, count(*) AS n FROM events WHERE event = 'hartenjagen.moon_shot' GROUP BY ALL),
bad_deal AS (SELECT match_id, 'deal ' || deal || ': penalties taken ' || taken::VARCHAR || ' total '
                    || total || ', not 26' AS detail FROM hj_deals WHERE total <> 26),
totals AS (SELECT m.match_id, 'scores ' || m.scores::VARCHAR || ' sum to ' || list_sum(m.scores) || ' over '
                  || m.deals_played || ' deals with ' || coalesce(mo.n, 0) || ' moon shots; expected '
                  || (26 * m.deals_played + coalesce(mo.n, 0) *
                      CASE WHEN json_extract_string(m.options, '$.moon_shot') = 'self_minus_26' THEN -52 ELSE 52 END)
                  AS detail
           FROM matches m LEFT JOIN moons mo USING (match_id)
           WHERE m.game = 'hartenjagen' AND list_sum(m.scores) <> 26 * m.deals_played + coalesce(mo.n, 0) *
                 CASE WHEN json_extract_string(m.options, '$.moon_shot') = 'self_minus_26' THEN -52 ELSE 52 END)
SELECT * FROM bad_deal UNION ALL SELECT * FROM totals;

-- invariant: hearts_moon_shot_event
-- H5: moon_shot fires in a deal exactly when one seat took all 26 points, naming that seat.
WITH ev AS (SELECT match_id, deal, seat FROM events WHERE event = 'hartenjagen.moon_shot')
SELECT coalesce(d.match_id, ev.match_id) AS match_id,
       'deal ' || coalesce(d.deal, ev.deal) || ': penalties taken ' || coalesce(d.taken::VARCHAR, '?')
       || ', moon_shot event for seat ' || coalesce(ev.seat::VARCHAR, 'none') AS detail
FROM (SELECT * FROM hj_deals WHERE list_contains(taken, 26)) d
FULL JOIN ev ON ev.match_id = d.match_id AND ev.deal = d.deal
WHERE d.match_id IS NULL OR ev.match_id IS NULL OR list_position(d.taken, 26) - 1 <> ev.seat;

-- invariant: hearts_scores_from_plays
-- The logged match scores equal the sum of the deal rows derived from the tricks (H5 applied).
WITH s AS (SELECT match_id, [sum(row[1]), sum(row[2]), sum(row[3]), sum(row[4])] AS derived
           FROM hj_rows GROUP BY match_id)
SELECT m.match_id, 'logged scores ' || m.scores::VARCHAR || ' but the tricks give ' || s.derived::VARCHAR AS detail
FROM matches m JOIN s USING (match_id)
WHERE m.game = 'hartenjagen' AND m.scores <> s.derived::DOUBLE[];

-- invariant: hearts_h4_match_end
-- H4: the match ends after the first deal in which a total reaches the target (or at max_deals).
WITH cum AS (SELECT r.match_id, r.deal,
                    list_max([sum(row[1]) OVER w, sum(row[2]) OVER w, sum(row[3]) OVER w, sum(row[4]) OVER w]) AS top
             FROM hj_rows r WINDOW w AS (PARTITION BY match_id ORDER BY deal)),
tgt AS (SELECT match_id, deals_played, max_deals,
               coalesce(json_extract(options, '$.target')::INTEGER, 100) AS target FROM matches WHERE game = 'hartenjagen')
SELECT c.match_id, 'deal ' || c.deal || ' of ' || t.deals_played || ': highest total ' || c.top || ', target '
       || t.target || CASE WHEN c.deal < t.deals_played THEN ' reached before the last deal'
                           ELSE ' not reached at the end' END AS detail
FROM cum c JOIN tgt t USING (match_id)
WHERE (c.deal < t.deals_played AND c.top >= t.target)
   OR (c.deal = t.deals_played AND c.top < t.target AND t.deals_played IS DISTINCT FROM t.max_deals);

-- invariant: hearts_h1_passing
-- H1: with pass_cards, deals 1, 2, 3 (mod 4) pass three cards per seat (left, right, across); deal 4 passes none.
WITH p AS (SELECT match_id, deal, seat, count(*) AS n FROM moves
           WHERE game = 'hartenjagen' AND starts_with(action, 'pass ') GROUP BY ALL),
d AS (SELECT DISTINCT m.match_id, mv.deal,
             coalesce(json_extract(m.options, '$.pass_cards')::BOOLEAN, true) AS passing
      FROM matches m JOIN moves mv USING (match_id) WHERE m.game = 'hartenjagen'),
per_deal AS (SELECT d.match_id, d.deal, d.passing, list(p.n ORDER BY p.seat) FILTER (WHERE p.n IS NOT NULL) AS ns,
                    count(p.seat) AS seats
             FROM d LEFT JOIN p ON p.match_id = d.match_id AND p.deal = d.deal GROUP BY ALL)
SELECT match_id, 'deal ' || deal || ': passes per seat ' || coalesce(ns::VARCHAR, '[]') || ', expected '
       || CASE WHEN passing AND deal % 4 <> 0 THEN '[3, 3, 3, 3]' ELSE 'none' END AS detail
FROM per_deal
WHERE CASE WHEN passing AND deal % 4 <> 0 THEN seats <> 4 OR list_min(ns) <> 3 OR list_max(ns) <> 3
           ELSE seats > 0 END;

-- invariant: hearts_pass_direction_event
-- H1: cards_passed names the cycle's direction: deal 1 left, 2 right, 3 across (then again).
SELECT match_id, 'deal ' || deal || ': cards_passed ' || data || ', expected direction '
       || ['left', 'right', 'across'][((deal - 1) % 4) + 1] AS detail
FROM events
WHERE event = 'hartenjagen.cards_passed' AND ((deal - 1) % 4 = 3 OR
      json_extract_string(data, '$.direction') <> ['left', 'right', 'across'][((deal - 1) % 4) + 1]);

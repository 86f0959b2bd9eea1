-- Family file of the manille family's common rules (butifarra, manille_muette, manille_parlee), checked
-- from the logged actions: every card is played in a deal, so a seat's holding at a trick is what it
-- plays from then on.  The deck and its card points are the engine's card tables (card_ranks).

-- setup
CREATE OR REPLACE TEMP VIEW {p}_plays AS
SELECT mv.match_id, mv.deal, mv.ply, mv.seat, substr(mv.action, 6, 2) AS card, substr(mv.action, 7, 1) AS suit,
       cr.plain_points AS pts,
       row_number() OVER (PARTITION BY mv.match_id, mv.deal ORDER BY mv.ply) - 1 AS k
FROM moves mv LEFT JOIN card_ranks cr ON cr.game = mv.game AND cr.card = substr(mv.action, 6, 2)
WHERE mv.game = '{game}' AND starts_with(mv.action, 'play ') AND length(mv.action) = 7;

CREATE OR REPLACE TEMP VIEW {p}_tricks AS
SELECT *, k // 4 AS trick, k % 4 AS pos,
       first_value(suit) OVER (PARTITION BY match_id, deal, k // 4 ORDER BY k) AS led
FROM {p}_plays;

CREATE OR REPLACE TEMP VIEW {p}_last AS
SELECT match_id, deal, seat, suit, max(k) AS last_k FROM {p}_plays GROUP BY ALL;

-- invariant: {game}_whole_deal
-- A deal plays every card of the deck once, worth the deck's card points (the engine's card tables).
WITH deck AS (SELECT count(*) AS cards, sum(plain_points) AS points FROM card_ranks WHERE game = '{game}')
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card)
       || ' distinct cards worth ' || sum(pts) || ', not ' || any_value(deck.cards) || ' cards and '
       || any_value(deck.points) || ' points' AS detail
FROM {p}_plays, deck GROUP BY match_id, deal
HAVING count(*) <> any_value(deck.cards) OR count(DISTINCT card) <> any_value(deck.cards)
    OR sum(pts) <> any_value(deck.points);

-- invariant: {game}_follow_suit
-- Follow suit if able: a seat that did not follow plays no card of the led suit later in the deal.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || t.led AS detail
FROM {p}_tricks t JOIN {p}_last l
  ON l.match_id = t.match_id AND l.deal = t.deal AND l.seat = t.seat AND l.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND l.last_k > t.k;

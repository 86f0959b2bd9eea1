-- Grevjas, RULES.md 2.17 (GJ1-GJ17), checked from the actions and events.  A deal may end before
-- its 32 cards are played (a claim of "honderd"), so "held later" checks use the cards the seat
-- still played in the same deal.  Trump comes from the trump_turned event.  Scores are strokes.

-- include: _kruisjas.sql p=gj

-- invariant: grevjas_gj9_trump_shown_once_per_deal
-- GJ9: every deal with plays was cut or tapped once (none for an injected deal) and turned one trump.
SELECT p.match_id, 'deal ' || p.deal || ': ' || coalesce(t.n, 0) || ' trump_turned, '
       || coalesce(c.n, 0) || ' cut/tap actions' AS detail
FROM (SELECT DISTINCT match_id, deal FROM gj_plays) p
LEFT JOIN gj_trump t USING (match_id, deal)
LEFT JOIN (SELECT match_id, deal, count(*) AS n FROM moves
           WHERE game = 'grevjas' AND action IN ('cut', 'tap') GROUP BY ALL) c USING (match_id, deal)
WHERE coalesce(t.n, 0) <> 1 OR coalesce(c.n, 0) > 1;

-- invariant: grevjas_follow_suit
-- Follow suit if able (trumping is always allowed): a seat that played neither the led suit nor a
-- trump plays no card of the led suit later in the deal.  Trump led: a seat that did not follow
-- holds no trump later except the bare Jas it kept back.
SELECT t.match_id, 'deal ' || t.deal || ' trick ' || (t.trick + 1) || ': seat ' || t.seat || ' played '
       || t.card || ' on a ' || t.led || ' lead but still held ' || p.card AS detail
FROM gj_tricks t JOIN gj_plays p
  ON p.match_id = t.match_id AND p.deal = t.deal AND p.seat = t.seat AND p.k > t.k AND p.suit = t.led
WHERE t.pos > 0 AND t.suit <> t.led AND (t.suit <> t.trump OR t.led = t.trump)
  AND NOT (t.led = t.trump AND p.r = 'J');

-- invariant: grevjas_cards_once_per_deal
-- A deal plays at most the 32 cards, each at most once.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' plays of ' || count(DISTINCT card) || ' distinct cards'
       AS detail
FROM gj_plays GROUP BY match_id, deal
HAVING count(*) > 32 OR count(*) <> count(DISTINCT card);

-- invariant: grevjas_one_result_per_deal
-- A deal ends with at most one claim or made pit, and a correct automatic claim is for a side at 100.
SELECT match_id, 'deal ' || deal || ': ' || count(*) || ' results' AS detail
FROM events WHERE event IN ('grevjas.honderd_claimed', 'grevjas.pit_made')
GROUP BY match_id, deal HAVING count(*) > 1
UNION ALL
SELECT match_id, 'deal ' || deal || ': a correct claim at ' || json_extract_string(data, '$.points') AS detail
FROM events WHERE event = 'grevjas.honderd_claimed'
  AND json_extract(data, '$.correct')::BOOLEAN AND json_extract(data, '$.points')::INTEGER < 100;

-- include: _partner_scores.sql check=scores_partners_equal

-- Family file (included by a game's queries, see verify.py): the trick strength of each play.
-- Needs a view {p}_plays with match_id, deal, k (the play's index in the deal), card, suit and
-- trump; {players} cards make a trick.  Strengths come from the engine's declared card tables
-- (card_ranks): a trump is 100 + its trump rank, a card of the led suit its plain rank, any other 0.

-- setup
-- each play with its trick, the led suit and the strength of the best card before it
CREATE OR REPLACE TEMP VIEW {p}_tricks AS
SELECT *,
       max(val) OVER (PARTITION BY match_id, deal, trick ORDER BY k
                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS best_before
FROM (SELECT pl.*,
             CASE WHEN pl.suit = pl.trump THEN 100 + cr.trump_rank
                  WHEN pl.suit = pl.led THEN cr.plain_rank ELSE 0 END AS val
      FROM (SELECT *, k // {players} AS trick, k % {players} AS pos,
                   first_value(suit) OVER (PARTITION BY match_id, deal, k // {players} ORDER BY k) AS led
            FROM {p}_plays) pl
      LEFT JOIN card_ranks cr ON cr.game = '{game}' AND cr.card = pl.card);

"""The shedding games: their base (``_shedding``)."""

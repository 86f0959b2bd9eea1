"""The manille family: Manillen and its variants (``_manille``: the trick base and the play rules;
``_parlee``: the talking variants' base)."""

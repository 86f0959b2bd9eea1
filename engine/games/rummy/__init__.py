"""The rummies: the drift rummies' base (``_rummy``) and the knock rummies' base (``_knock``)."""

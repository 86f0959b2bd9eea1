"""One module per game, ``<id>.py``, each declaring its game with :func:`engine.core.register`;
``_``-prefixed modules hold the families' shared bases and rule objects (engine/README.md).

Importing this package imports no game: :func:`engine.core.discover` lists the game modules on
this package's path and :func:`engine.core.game_class` imports the one it is asked for.
"""

"""Players: the bot interface of CONTRACT.md, the sandbox, built-in bots and the match loop.

``api`` (the interface, bot sources), ``sandbox`` + ``_runner`` (one OS process per sandboxed bot),
``match`` (the fault-containing match loop, ``make_players``, ``play``), ``validate``, ``registry``
(submitted bots), ``cli`` (``cardarena bots ...``), ``obsdoc`` (docs/bots.md's observation tables),
``builtin/`` (``random``, ``greedy``, ``ismcts``), ``examples/``.  See docs/bots.md.
"""

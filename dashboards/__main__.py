"""``python -m dashboards``: the ``cardarena`` command (dashboards/entry.py)."""
from dashboards.entry import main

main()

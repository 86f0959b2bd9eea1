"""Placement rewards (issue 24, section 4): +1 first, -1 last, zero-sum, tied seats sharing."""
from __future__ import annotations

from collections.abc import Sequence


def placement_rewards(ranking: Sequence[int]) -> list[float]:
    """Each seat's reward ``(n + 1 - 2r) / (n - 1)`` from ``State.ranking()`` places (1 is best),
    where ``r`` is the mean of the places tied seats would share: +1 first, -1 last, zero-sum,
    partners (equal places) equal."""
    n = len(ranking)
    if n < 2:
        return [0.0] * n
    order = sorted(range(n), key=lambda s: ranking[s])
    mean_place: dict[int, float] = {}
    i = 0
    while i < n:
        j = i
        while j + 1 < n and ranking[order[j + 1]] == ranking[order[i]]:
            j += 1
        mean_place[ranking[order[i]]] = (i + 1 + j + 1) / 2  # places i+1 .. j+1 shared
        i = j + 1
    return [(n + 1 - 2 * mean_place[ranking[s]]) / (n - 1) for s in range(n)]

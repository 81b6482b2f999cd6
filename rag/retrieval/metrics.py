"""Retrieval quality metrics over ranked document ids. Pure."""

from __future__ import annotations

import math
from collections.abc import Sequence


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """Share of the relevant documents found in the top ``k``."""
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & relevant) / len(relevant)


def reciprocal_rank(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    """1/rank of the first relevant document in the top ``k``, else 0."""
    for i, doc in enumerate(ranked[:k], 1):
        if doc in relevant:
            return 1.0 / i
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    """Normalised discounted cumulative gain of the top ``k`` with binary relevance (duplicates count once)."""
    if not relevant:
        return 0.0
    seen: set[str] = set()
    dcg = 0.0
    for i, doc in enumerate(ranked[:k], 1):
        if doc in relevant and doc not in seen:
            dcg += 1.0 / math.log2(i + 1)
        seen.add(doc)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))
    return dcg / ideal

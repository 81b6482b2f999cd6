"""The semantic layer: a message's vectors scored against each route's examples, and by the classifier.

A route's score is the mean cosine similarity of the message to its ``k`` nearest examples in
routes.yaml (any tool the configuration names, a new one too). The tool classifier
(rag.routing.classifier), when one is loaded, adds calibrated probabilities for the tools it was fitted
on. Pure numpy over vectors the caller embeds (so one embedding of the message serves retrieval and
routing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.routing.classifier import NONE, Classification, ToolClassifier

__all__ = ["NONE", "SemanticRouter"]


class SemanticRouter:
    def __init__(
        self,
        routes: Mapping[str, Sequence[Sequence[float]]],
        k: int = 3,
        classifier: ToolClassifier | None = None,
    ) -> None:
        self._names = list(routes)
        self._matrices = {
            name: _normalize(np.asarray(vectors, dtype=np.float32)) for name, vectors in routes.items()
        }
        self._k = k
        # Every route's examples in one matrix, and each route's columns of it padded to the largest
        # route's count with a column that scores -inf: one product and one sort score all routes
        # (when each has k examples or more; else route by route).
        sizes = [len(m) for m in self._matrices.values()]
        self._at_once = bool(sizes) and min(sizes) >= k
        if self._at_once:
            self._all = np.vstack(list(self._matrices.values()))
            self._columns = np.full((len(sizes), max(sizes)), len(self._all), dtype=np.intp)
            for row, (end, size) in enumerate(zip(np.cumsum(sizes), sizes, strict=True)):
                self._columns[row, :size] = np.arange(end - size, end)
        self.classifier = classifier

    @property
    def routes(self) -> list[str]:
        return list(self._names)

    def scores(self, vectors: Sequence[Sequence[float]]) -> dict[str, float]:
        """Per route, the best score over ``vectors`` (the message and its clauses)."""
        q = _normalize(np.asarray(vectors, dtype=np.float32))
        if not self._at_once:
            return {name: _best(q @ matrix.T, self._k) for name, matrix in self._matrices.items()}
        sims = np.concatenate([q @ self._all.T, np.full((len(q), 1), -np.inf, np.float32)], axis=1)
        top = np.sort(sims[:, self._columns], axis=2)[:, :, -self._k :]  # (vectors, routes, k)
        best = top.mean(axis=2).max(axis=0)
        return dict(zip(self._names, best.tolist(), strict=True))

    def classify(self, vectors: Sequence[Sequence[float]]) -> Classification | None:
        """The classifier's probabilities over ``vectors`` (the message first), or None without one."""
        return self.classifier.classify(vectors) if self.classifier is not None else None


def _best(sims: np.ndarray, k: int) -> float:
    """The mean of the ``k`` best of each vector's similarities (its row), at best over the vectors."""
    top = np.sort(sims, axis=1)[:, -min(k, sims.shape[1]) :]
    return float(top.mean(axis=1).max())


def _normalize(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    out: np.ndarray = m / np.maximum(norms, 1e-12)
    return out

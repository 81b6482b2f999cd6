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
        self.classifier = classifier

    @property
    def routes(self) -> list[str]:
        return list(self._names)

    def scores(self, vectors: Sequence[Sequence[float]]) -> dict[str, float]:
        """Per route, the best score over ``vectors`` (the message and its clauses)."""
        q = _normalize(np.asarray(vectors, dtype=np.float32))
        out: dict[str, float] = {}
        for name, matrix in self._matrices.items():
            sims = q @ matrix.T  # (n_vectors, n_examples)
            k = min(self._k, sims.shape[1])
            top = np.sort(sims, axis=1)[:, -k:]
            out[name] = float(top.mean(axis=1).max())
        return out

    def classify(self, vectors: Sequence[Sequence[float]]) -> Classification | None:
        """The classifier's probabilities over ``vectors`` (the message first), or None without one."""
        return self.classifier.classify(vectors) if self.classifier is not None else None


def _normalize(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    out: np.ndarray = m / np.maximum(norms, 1e-12)
    return out

"""The tool classifier: calibrated one-vs-rest logistic heads over the message embedding. Pure numpy.

One head per tool plus ``none`` (no tool), fitted offline by ``scripts/fit_routing.py`` on labelled
messages (public intent datasets mapped to our tools, our own dev set and the examples in routes.yaml)
and shipped as a small ``.npz`` of weights: at run time a message costs one matrix product and a
sigmoid. The heads are calibrated (Platt scaling on out-of-fold scores), so a head's output reads as the
probability that the message asks for that tool. The file also carries the fitted decision thresholds
and a few probe sentences with their vectors, so a router can check that it embeds as the classifier was
fitted (another embedding model would make the weights meaningless).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ConfigError

logger = logging.getLogger(__name__)

NONE = "none"
DEFAULT_PATH = Path(__file__).with_name("tool_classifier.npz")
# Cosine between the router's vector of a probe sentence and the stored one: the int8 ONNX query model
# and the float sentence-transformers model agree to 0.999; another model does not come close.
PROBE_AGREEMENT = 0.98


@dataclass
class Thresholds:
    """Per tool: the probability at which it fires alone, and the lower one enough with its keyword.

    ``none_veto``: when the ``none`` head reaches it, a keyword alone (with complete parameters or an
    explicit ask) no longer fires a tool: "add this song to my road trip playlist" is not a booking.
    """

    fire: dict[str, float]
    keyword: dict[str, float]
    none_veto: float = 1.01


@dataclass(frozen=True, slots=True)
class Classification:
    """The classifier's view of one message: per head, the probability; and the thresholds to apply."""

    probabilities: dict[str, float]
    thresholds: Thresholds

    def knows(self, tool: str) -> bool:
        return tool in self.probabilities and tool in self.thresholds.fire

    @property
    def vetoed(self) -> bool:
        return self.probabilities.get(NONE, 0.0) >= self.thresholds.none_veto


@dataclass
class ToolClassifier:
    heads: list[str]  # tool names, then NONE
    weights: np.ndarray  # (heads, dimension), calibration folded in
    bias: np.ndarray  # (heads,)
    thresholds: Thresholds
    probe_texts: list[str] = field(default_factory=list)
    probe_vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.weights.ndim != 2 or self.weights.shape[0] != len(self.heads):
            raise ConfigError(f"tool classifier: weights {self.weights.shape} for {len(self.heads)} heads")
        if self.bias.shape != (len(self.heads),):
            raise ConfigError(f"tool classifier: bias {self.bias.shape} for {len(self.heads)} heads")
        if NONE not in self.heads:
            raise ConfigError(f"tool classifier: no {NONE!r} head")

    @property
    def dimension(self) -> int:
        return int(self.weights.shape[1])

    @property
    def tools(self) -> list[str]:
        return [h for h in self.heads if h != NONE]

    def probabilities(self, vectors: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        """(n_vectors, heads) probabilities for unit vectors."""
        x = np.asarray(vectors, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.dimension:
            raise ValueError(f"expected vectors of dimension {self.dimension}, got shape {x.shape}")
        return sigmoid(x @ self.weights.T + self.bias)

    def classify(self, vectors: Sequence[Sequence[float]] | np.ndarray) -> Classification:
        """The message first, then its clauses: a tool takes its best probability over all of them
        ("a flight to Rome and a hotel there" asks for both), ``none`` only the whole message's."""
        p = self.probabilities(vectors)
        best = p.max(axis=0)
        out = {h: float(best[i]) for i, h in enumerate(self.heads)}
        out[NONE] = float(p[0, self.heads.index(NONE)])
        return Classification(out, self.thresholds)

    def agrees_with(self, vectors: Sequence[Sequence[float]] | np.ndarray) -> bool:
        """Whether ``vectors`` (the router's embeddings of ``probe_texts``) match the fitted ones."""
        if not self.probe_texts:
            return True
        got = np.asarray(vectors, dtype=np.float32)
        if got.shape != self.probe_vectors.shape:
            return False
        cos = np.sum(_unit(got) * _unit(self.probe_vectors), axis=1)
        return bool(np.all(cos >= PROBE_AGREEMENT))

    @classmethod
    def load(cls, path: Path = DEFAULT_PATH) -> ToolClassifier:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                thresholds = meta.pop("thresholds")
                return cls(
                    heads=[str(h) for h in data["heads"]],
                    weights=data["weights"].astype(np.float32),
                    bias=data["bias"].astype(np.float32),
                    thresholds=Thresholds(
                        fire=dict(thresholds["fire"]),
                        keyword=dict(thresholds["keyword"]),
                        none_veto=float(thresholds["none_veto"]),
                    ),
                    probe_texts=[str(t) for t in data["probe_texts"]],
                    probe_vectors=data["probe_vectors"].astype(np.float32),
                    meta=meta,
                )
        except (OSError, KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"cannot load the tool classifier {path}: {exc}") from exc

    def save(self, path: Path) -> None:
        meta = dict(self.meta) | {
            "thresholds": {
                "fire": self.thresholds.fire,
                "keyword": self.thresholds.keyword,
                "none_veto": self.thresholds.none_veto,
            }
        }
        np.savez_compressed(
            path,
            heads=np.array(self.heads),
            weights=self.weights.astype(np.float32),
            bias=self.bias.astype(np.float32),
            probe_texts=np.array(self.probe_texts),
            probe_vectors=self.probe_vectors.astype(np.float32),
            meta=np.array(json.dumps(meta, sort_keys=True)),
        )


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow at either end."""
    e = np.exp(-np.abs(z))
    out: np.ndarray = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(np.float32)
    return out


def _unit(m: np.ndarray) -> np.ndarray:
    out: np.ndarray = m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
    return out

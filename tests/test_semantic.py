"""The semantic layer's tool classifier: the shipped weights, the pure scoring, and routing with the real model."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import logging
import math
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
import pytest_asyncio

from connectors.places import LocationCatalogue
from rag.embedding.onnx import OnnxEmbedder
from rag.errors import ConfigError
from rag.routing.classifier import DEFAULT_PATH, NONE, Classification, Thresholds, ToolClassifier, sigmoid
from rag.routing.config import load_config
from rag.routing.layers import decide
from rag.routing.router import Router
from rag.routing.semantic import SemanticRouter
from rag.settings import EmbeddingSettings
from rag.tools.catalog import ToolCatalogue

TOOLS = ToolCatalogue.builtin()

TODAY = dt.date(2026, 11, 21)
CONFIG = load_config()
CAT = LocationCatalogue.load()
# One query model and one router for the module: the tests read them, never change them.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def embedder() -> AsyncIterator[OnnxEmbedder]:
    emb = await OnnxEmbedder.load(EmbeddingSettings())
    yield emb
    await emb.close()


async def make_router(embedder: OnnxEmbedder, classifier_path: Path | None = DEFAULT_PATH) -> Router:
    async def embed(texts: list[str]) -> list[list[float]]:
        return await embedder.embed_documents(texts)

    return await Router.create(
        CONFIG, CAT, TOOLS, embed, today=lambda: TODAY, classifier_path=classifier_path
    )


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router(embedder: OnnxEmbedder) -> Router:
    """The router as the service builds it, with the shipped classifier."""
    return await make_router(embedder)


def hand_made(none_veto: float = 1.01) -> ToolClassifier:
    """Two tools over 2-d vectors: each looks at one axis; ``none`` is a constant 0.25."""
    return ToolClassifier(
        heads=["flights", "hotels", NONE],
        weights=np.array([[math.log(3), 0.0], [0.0, math.log(3)], [0.0, 0.0]], dtype=np.float32),
        bias=np.array([0.0, 0.0, -math.log(3)], dtype=np.float32),
        thresholds=Thresholds(
            fire={"flights": 0.7, "hotels": 0.7}, keyword={"flights": 0.4, "hotels": 0.4}, none_veto=none_veto
        ),
    )


# --- the shipped artifact -----------------------------------------------------------------------------


async def test_the_shipped_classifier_fits_the_query_embedder(embedder: OnnxEmbedder) -> None:
    clf = ToolClassifier.load()
    assert DEFAULT_PATH.stat().st_size < 1_000_000
    assert set(clf.tools) == set(CONFIG.tools) and clf.heads[-1] == NONE
    assert clf.dimension == embedder.dimension == len((await embedder.embed_documents(["hi"]))[0])
    assert clf.meta["embedder"] == embedder.name
    assert clf.agrees_with(await embedder.embed_documents(clf.probe_texts))
    for tool in clf.tools:
        assert 0 < clf.thresholds.keyword[tool] <= clf.thresholds.fire[tool] <= 1.01
    assert "CLINC150" in clf.meta["fitted_on"]["sources"]  # what it was fitted on travels with it


async def test_the_router_loads_it_and_another_model_falls_back_to_examples(
    router: Router, caplog: pytest.LogCaptureFixture
) -> None:
    assert router.semantic.classifier is not None

    async def other_model(texts: list[str]) -> list[list[float]]:
        # Stands in for WAYFARER_EMBEDDING__MODEL: same dimension, unrelated vectors.
        out = []
        for t in texts:
            seed = int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=384)
            out.append((v / np.linalg.norm(v)).tolist())
        return out

    with caplog.at_level(logging.WARNING, logger="rag.routing.router"):
        other = await Router.create(CONFIG, CAT, TOOLS, other_model, today=lambda: TODAY)
    assert other.semantic.classifier is None and "another embedding model" in caplog.text
    assert (await other.analyse("flights from Paris to Rome")).classification is None


def test_a_broken_file_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "tool_classifier.npz"
    bad.write_bytes(b"not a numpy archive")
    with pytest.raises(ConfigError) as info:
        ToolClassifier.load(bad)
    assert info.value.code == "config_error" and str(bad) in info.value.message
    with pytest.raises(ConfigError):
        ToolClassifier.load(tmp_path / "missing.npz")


# --- pure scoring ---------------------------------------------------------------------------------------


def test_probabilities_by_hand() -> None:
    clf = hand_made()
    p = clf.probabilities([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    expected = [[0.75, 0.5, 0.25], [0.5, 0.75, 0.25], [0.5, 0.5, 0.25]]
    assert np.allclose(p, expected, atol=1e-6)
    rng = np.random.default_rng(7)
    x = rng.normal(size=(5, 2)).astype(np.float32)
    z = x @ clf.weights.T + clf.bias
    assert np.allclose(clf.probabilities(x), 1 / (1 + np.exp(-z)), atol=1e-6)
    with pytest.raises(ValueError, match="dimension 2"):
        clf.probabilities([[1.0, 0.0, 0.0]])


def test_sigmoid_is_stable_at_the_extremes() -> None:
    with np.errstate(over="raise", invalid="raise"):
        out = sigmoid(np.array([-1000.0, 0.0, 1000.0]))
    assert out.tolist() == [0.0, 0.5, 1.0]


def test_a_tool_takes_its_best_clause_and_none_the_whole_message() -> None:
    # "a flight ... and a hotel ...": the message, then its two clauses.
    c = hand_made().classify([[0.2, 0.1], [1.0, 0.0], [0.0, 1.0]])
    assert c.probabilities["flights"] == pytest.approx(0.75) and c.probabilities["hotels"] == pytest.approx(
        0.75
    )
    assert c.probabilities[NONE] == pytest.approx(0.25)
    assert c.knows("flights") and not c.knows("trains") and not c.vetoed
    assert hand_made(none_veto=0.2).classify([[0.0, 0.0]]).vetoed


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    clf = dataclasses.replace(
        hand_made(0.9), probe_texts=["a", "b"], probe_vectors=np.eye(2, dtype=np.float32), meta={"x": 1}
    )
    clf.save(tmp_path / "c.npz")
    back = ToolClassifier.load(tmp_path / "c.npz")
    assert back.heads == clf.heads and back.thresholds == clf.thresholds and back.meta == {"x": 1}
    assert np.array_equal(back.weights, clf.weights) and np.array_equal(back.bias, clf.bias)
    assert back.agrees_with([[1.0, 0.0], [0.0, 2.0]]) and not back.agrees_with([[0.0, 1.0], [1.0, 0.0]])


async def test_decide_reads_the_probabilities_and_the_veto(router: Router) -> None:
    """A complete request with the tool's keyword ("hotel in Lisbon from July 10 for 3 nights"):
    sure of the tool, it fires as semantic; unsure, the keyword and complete parameters still fire it;
    sure of no tool, nothing fires."""
    a = await router.analyse("hotel in Lisbon from July 10 for 3 nights")
    assert a.classification is not None
    thresholds = a.classification.thresholds

    def with_p(hotel: float, none: float) -> dict[str, tuple[float, str]]:
        probabilities = dict.fromkeys(a.classification.probabilities, 0.0) | {
            "hotel_search": hotel,
            NONE: none,
        }
        return decide(
            dataclasses.replace(a, classification=Classification(probabilities, thresholds)), CONFIG
        )

    assert with_p(0.999, 0.0) == {"hotel_search": (0.999, "semantic")}
    assert with_p(0.0, 0.5) == {"hotel_search": (0.0, "keyword")}
    assert with_p(0.0, 0.999) == {}


# --- with the real model --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "tools"),
    [
        ("i need a hotel room in nairobi", {"hotel_search"}),
        ("what's the weather going to be like", {"weather_forecast"}),
        ("play some jazz", set()),
        # Missed by the examples alone (they score below their thresholds or fire the wrong tool):
        ("will i need a jacket in chicago tomorrow", {"weather_forecast"}),
        ("will it be chilly in ohio tomorrow", {"weather_forecast"}),
        ("how many carry ons can i bring on a flight to denver", set()),
        ("rate the book a room with a view 4 stars", set()),
    ],
)
async def test_public_style_messages(router: Router, message: str, tools: set[str]) -> None:
    d = await router.route(message)
    assert d.intended == tools, (d.tools, d.missing)


def _scores_one_route_at_a_time(
    routes: dict[str, np.ndarray], vectors: np.ndarray, k: int
) -> dict[str, float]:
    """What a route's score means, written out: the mean of its k best cosines, at best over the vectors."""
    q = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    out = {}
    for name, m in routes.items():
        sims = q @ (m / np.linalg.norm(m, axis=1, keepdims=True)).T
        out[name] = float(np.sort(sims, axis=1)[:, -min(k, sims.shape[1]) :].mean(axis=1).max())
    return out


@pytest.mark.parametrize("fewest", [3, 1])  # every route with k examples or more; one with fewer than k
def test_all_routes_scored_at_once_as_one_at_a_time(fewest: int) -> None:
    rng = np.random.default_rng(7)
    sizes = [fewest, 5, 12, 40, 3]
    routes = {f"r{i}": rng.normal(size=(n, 16)).astype(np.float32) for i, n in enumerate(sizes)}
    layer = SemanticRouter({name: m.tolist() for name, m in routes.items()}, k=3)
    for n_vectors in (1, 2, 4):
        vectors = rng.normal(size=(n_vectors, 16)).astype(np.float32)
        got = layer.scores(vectors.tolist())
        want = _scores_one_route_at_a_time(routes, vectors, 3)
        assert list(got) == list(want)
        assert all(abs(got[name] - want[name]) < 1e-5 for name in want), (got, want)

"""The router with the real query model: traps, several tools, commands, clarifying questions, config."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml

from connectors.places import LocationCatalogue
from rag.embedding.onnx import OnnxEmbedder
from rag.errors import ConfigError
from rag.routing.config import DEFAULT_PATH, load_config
from rag.routing.evaluation import report, split
from rag.routing.router import Router
from rag.settings import EmbeddingSettings
from rag.tools.catalog import ToolCatalogue
from scripts.sgd_data import DATA_DIR as SGD_DIR
from scripts.sgd_data import TODAY as SGD_TODAY
from scripts.sgd_routing import sample, sgd_rows

TOOLS = ToolCatalogue.builtin()

TODAY = dt.date(2026, 11, 21)
CAT = LocationCatalogue.load()
DATA = Path(__file__).parent / "data"


# One query model and one router for the module: routing reads them, never changes them.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def query_embedder() -> AsyncIterator[OnnxEmbedder]:
    emb = await OnnxEmbedder.load(EmbeddingSettings())
    yield emb
    await emb.close()


async def make_router(embedder: OnnxEmbedder, config: Any = None) -> Router:
    async def embed(texts: list[str]) -> list[list[float]]:
        return await embedder.embed_documents(texts)

    return await Router.create(config or load_config(), CAT, TOOLS, embed, today=lambda: TODAY)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router(query_embedder: OnnxEmbedder) -> Router:
    """The router as the service builds it from routes.yaml."""
    return await make_router(query_embedder)


async def test_the_issue_example(router: Router) -> None:
    d = await router.route("flights to Paris from NYC on June 2 and a hotel for 3 nights")
    tools = {t.name: t for t in d.tools}
    assert set(tools) == {"flight_search", "hotel_search"} and not d.missing
    assert tools["flight_search"].params == {
        "origin": "NYC",
        "destination": "PAR",
        "departure_date": "2027-06-02",
    }
    assert tools["hotel_search"].params == {"city": "PAR", "check_in": "2027-06-02", "nights": 3}
    assert all(0 <= t.confidence <= 1 and t.via in {"keyword", "semantic"} for t in d.tools)


@pytest.mark.parametrize(
    "message",
    [
        "How many people live in Moscow?",
        "Paris",
        "tokyo?",
        "When was the Colosseum built?",
        "what hotels did you find?",
        "which was the cheapest flight you showed me",
        "What's the weather like in Bali in August?",
        "what's the best time to visit Kyoto",
        "how early should I get to the airport",
        "thanks!",
    ],
)
async def test_traps_call_no_tool(router: Router, message: str) -> None:
    d = await router.route(message)
    assert d.tools == [] and d.missing == {} and d.use_rag


async def test_missing_parameters_are_asked_not_guessed(router: Router) -> None:
    d = await router.route("find me flights to Lisbon")
    assert d.tools == [] and d.missing == {"flight_search": ["origin", "departure_date"]}
    assert d.clarify and "flying from" in d.clarify and "date" in d.clarify
    weather = await router.route("what's the weather forecast tomorrow?")
    assert weather.missing == {"weather_forecast": ["city"]} and "which place" in (weather.clarify or "")


async def test_commands_override_everything(router: Router) -> None:
    d = await router.route("/flights LON PAR 2027-05-05")
    assert [(t.name, t.params, t.via) for t in d.tools] == [
        ("flight_search", {"origin": "LON", "destination": "PAR", "departure_date": "2027-05-05"}, "command")
    ]
    assert d.use_rag is False
    hotels = await router.route("/hotels Rome 2027-06-02 3")
    assert hotels.tools[0].params == {"city": "ROM", "check_in": "2027-06-02", "nights": 3}
    weather = await router.route("/weather New York")
    assert weather.tools[0].params["city"] == "New York"
    both = await router.route("/weather Tokyo and /activities Kyoto")
    assert {t.name for t in both.tools} == {"weather_forecast", "activity_search"}
    unknown = await router.route("/teleport Mars")
    assert unknown.tools == [] and "Unknown command /teleport" in (unknown.clarify or "")


async def test_heldout_accuracy_meets_the_targets(router: Router) -> None:
    rows = [json.loads(x) for x in (DATA / "routing_dev.jsonl").open()]
    held = [r for r in rows if split(r["text"]) == "holdout"]
    pairs = [(set(r["expected_tools"]), (await router.route(r["text"])).intended) for r in held]
    rep = report(pairs, TOOLS)
    # Measured 0.966 and 1.000; the issue's targets are 0.95 and 0.97.
    assert rep["exact_match"] >= 0.95 and rep["no_tool_left_alone"] >= 0.97, rep


@pytest.mark.skipif(not (SGD_DIR / "dev.jsonl").exists(), reason="needs ../shared/data/sgd-travel")
async def test_conversational_turns_route(router: Router) -> None:
    """SGD dev turns (never fitted on; scripts/sgd_routing.py says how they are labelled): a fixed sample
    of turns that state an intent ("I'm looking for a house to stay in") reach their tool alone, and of
    replies ("that works", "when does it land?", "anything else?") call none."""
    rows = sgd_rows("dev")
    intents = sample([r for r in rows if r["kind"] == "intent"], 150)
    replies = sample([r for r in rows if r["kind"] == "reply"], 50)
    right = [
        set(r["expected_tools"]) == (await router.route(r["text"], today=SGD_TODAY)).intended for r in intents
    ]
    quiet = [not (await router.route(r["text"], today=SGD_TODAY)).intended for r in replies]
    # Measured 0.867 and 0.96 (0.78 and 0.90 before the classifier was fitted on SGD's train turns): the
    # floors leave a few messages of slack and stay above the old figures.
    assert sum(right) / len(right) >= 0.82, [
        r["text"] for r, ok in zip(intents, right, strict=True) if not ok
    ]
    assert sum(quiet) / len(quiet) >= 0.92, [
        r["text"] for r, ok in zip(replies, quiet, strict=True) if not ok
    ]


async def test_a_new_tool_needs_only_its_declaration(query_embedder: OnnxEmbedder) -> None:
    train = dataclasses.replace(
        TOOLS["flight_search"],
        name="train_search",
        description="Search train tickets between two cities.",
        routing={
            "command": "/trains",
            "keywords": [r"\btrains?\b|\brail\b"],
            "examples": [
                "train tickets from Paris to Lyon",
                "find a train to Milan tomorrow",
                "rail fares Berlin Munich",
            ],
            "required": ["origin", "destination"],
            "params": {"origin": "origin", "destination": "destination", "date": "start_date"},
            "ask": {"origin": "where you leave from", "destination": "where you are going"},
        },
    )
    router = await make_router(query_embedder, load_config(tools={**TOOLS, "train_search": train}))
    d = await router.route("book a train from Paris to Milan on May 4")
    assert [(t.name, t.params["destination"]) for t in d.tools] == [("train_search", "MIL")]


def override(tool: str, **entry: Any) -> Callable[[dict[str, Any]], None]:
    """A change to routes.yaml: a tools: override of a declared tool's routing entry."""
    return lambda raw: raw.setdefault("tools", {}).update({tool: entry})


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (override("flight_search", keywords=["(unclosed"]), "unterminated"),
        (override("flight_search", params={"origin": "nowhere"}), "unknown extractor slots"),
        (override("hotel_search", required=["city", "pets"]), "no slot"),
        (override("hotel_search", command="hotels"), "must start with /"),
        (override("hotel_search", command="/flights"), "share a command"),
        (override("hotel_search", suppresses=["teleport"]), "unknown tools"),
        (override("hotel_search", description="Hotels."), "declared with the tool"),
        (lambda r: r.pop("none_examples"), "none_examples"),
    ],
)
def test_bad_configuration_is_refused_at_start(tmp_path: Path, change: Any, fragment: str) -> None:
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    change(raw)
    path = tmp_path / "routes.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert fragment in info.value.message and str(path) in info.value.message


def test_config_names_only_known_tools(tmp_path: Path) -> None:
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    raw["tools"] = {"teleport": {"command": "/teleport"}}
    path = tmp_path / "routes.yaml"
    path.write_text(yaml.safe_dump(raw))
    with pytest.raises(ConfigError, match="no such tools"):
        load_config(path)


@pytest.mark.parametrize(
    ("message", "tool", "missing"),
    [
        ("Can you find me a hotel in Nairobi.", "hotel_search", ["check_in"]),
        ("what is the weather", "weather_forecast", ["city"]),
        ("what's the weather like today", "weather_forecast", ["city"]),
        ("find me a hotel for next weekend", "hotel_search", ["city"]),
        ("kansas city to las vegas economy", "flight_search", ["departure_date"]),
        ("houston to dallas before midnight", "flight_search", ["departure_date"]),
        (
            "what is the least expensive fare from boston to salt lake city",
            "flight_search",
            ["departure_date"],
        ),
        ("get fares from washington to montreal", "flight_search", ["departure_date"]),
    ],
)
async def test_an_intent_is_never_dropped(
    router: Router, message: str, tool: str, missing: list[str]
) -> None:
    d = await router.route(message)
    assert d.tools == [] and d.missing == {tool: missing}, d.to_json()
    assert d.clarify, d.to_json()


async def test_unknown_and_ambiguous_places_are_asked_about_by_name(router: Router) -> None:
    unknown = await router.route("find me hotels in Zzyzx next week")
    assert unknown.intended == {"hotel_search"} and not unknown.tools
    assert "Zzyzx" in (unknown.clarify or "") and unknown.unknown_places == ["Zzyzx"]
    shared = await router.route("I want to fly to Springfield on May 5 from Chicago")
    assert shared.missing == {"flight_search": ["destination"]}
    assert "Springfield" in (shared.clarify or "") and "SGF" in (shared.clarify or "")
    # The forecast geocodes any place, known to the catalogue or not.
    town = await router.route("what will the weather be in Lagunitas")
    assert [(t.name, t.params["city"]) for t in town.tools] == [("weather_forecast", "Lagunitas")]


async def test_show_me_is_not_an_activity(router: Router) -> None:
    d = await router.route("show me flights from boston to denver tomorrow")
    assert [t.name for t in d.tools] == ["flight_search"]
    assert d.tools[0].params["origin"] == "BOS" and d.tools[0].params["destination"] == "DEN"


async def test_a_route_by_train_is_not_a_flight(router: Router) -> None:
    d = await router.route("Lisbon to Porto by train")
    assert "flight_search" not in d.intended


@pytest.mark.parametrize(
    ("message", "intended"),
    [
        ("get me a plane ticket to austin", {"flight_search"}),  # a plane ticket is not an activity
        ("when should I fly Lisbon to Rio to get the lowest fare?", {"cheapest_dates"}),
        ("tell me about the weather today", {"weather_forecast"}),  # not "tell me about the results"
        ("remind me of the hotel in Lisbon you found", set()),
    ],
)
async def test_keyword_edges(router: Router, message: str, intended: set[str]) -> None:
    d = await router.route(message)
    assert d.intended == intended, d.to_json()


def test_keyword_rules_match_as_case_insensitive_search_does() -> None:
    """The rules' fast path (lower-case rules, case-sensitively, in an ASCII message lower-cased) finds
    what re.IGNORECASE finds, for every rule group, on every route's examples in three casings."""
    import re

    from rag.routing.config import Rules, lowered_ascii

    config = load_config()
    groups = [config.negative_keywords, config.retrieval_keywords]
    groups += [g for t in config.tools.values() for g in (t.keywords, t.negative)]
    messages = [m for t in config.tools.values() for m in t.examples] + config.none_examples
    messages += ["FIND A HOTEL IN LISBON", "Flights LON-PAR", "LHR to JFK on May 5", "Büro in München?"]
    matched = 0
    for patterns in groups:
        rules, plain = Rules(patterns), [re.compile(p, re.IGNORECASE) for p in patterns]
        for message in messages:
            for text in (message, message.upper(), message.title()):
                want = any(p.search(text) for p in plain)
                assert rules.search(text, lowered_ascii(text)) == want, (patterns, text)
                matched += want
    assert matched > 100  # the rules do match: the comparison is not of two empty answers

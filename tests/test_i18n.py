"""Other languages: detection, the message catalogue, the composer and the LLM prompt in the traveller's
language, and Spanish, French, German, Portuguese and Italian requests through the real router."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient
from hypothesis import example, given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI

from connectors.places import LocationCatalogue
from rag.chat.composer import Passage, ToolAnswer
from rag.chat.generate import LLMWriter
from rag.embedding.onnx import OnnxEmbedder
from rag.i18n import LANGUAGES, detect_language, join_list, message, phrases, placeholders
from rag.i18n.detect import _MARKERS, _marked, _weighed
from rag.routing.config import load_config
from rag.routing.router import Router
from rag.settings import EmbeddingSettings
from rag.tools.catalog import ToolCatalogue
from tests.answering import answer as compose_answer

TOOLS = ToolCatalogue.builtin()

# One app and one router for the module (neither changes); each chat is its own user's.
pytestmark = pytest.mark.asyncio(loop_scope="module")
TODAY = dt.date(2026, 11, 21)  # a Saturday


# --- detection ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("hotel en Lisboa", "es"),
        ("¿Qué puedo hacer en Lisboa con niños?", "es"),
        ("Hotel en Lisboa del 12 al 15 de mayo", "es"),
        ("dónde alojarse en Madrid", "es"),
        ("vuelos a Madrid", "es"),
        ("Que voir à Rome en deux jours ?", "fr"),
        ("vols de Paris à Rome le 4 avril", "fr"),
        ("Wetter morgen in Köln", "de"),
        ("Wetter in München morgen", "de"),
        ("was kann man in Berlin machen", "de"),
        ("voos de Lisboa para Madrid amanhã", "pt"),
        ("o que fazer em Lisboa", "pt"),
        ("meteo a Firenze domani", "it"),
        ("albergo a Roma", "it"),
        ("cosa vedere a Roma", "it"),
    ],
)
def test_the_language_of_short_travel_messages(text: str, lang: str) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    "text",
    [
        "Can you find me a hotel in Nairobi.",
        "kansas city to las vegas economy",
        "lon par 5 may",  # "par" is French, the message is not
        "ho chi minh",  # a name: the model alone would say Italian
        "hi ai",
        "im not sure",
        "wake me at 6am",
        "hotel in Rome",
        "flights to Rio de Janeiro",
        "hotel in Playa del Carmen",
        "weather in San Jose tomorrow",
        "what about Porto?",
        "Paris",
        "tokyo?",
        "Nice",
        "hi",
        "👍🏨✈️",
        "",
        "   ",
        "東京のホテル",  # another script: not one of ours
        "hotel в Москве",  # mixed scripts
        "Lisboa " * 400,  # 2,400 characters of a name alone
    ],
)
def test_unsure_or_english_messages_are_english(text: str) -> None:
    assert detect_language(text) == "en"


def test_a_long_message_is_read_by_its_opening() -> None:
    long = "Quiero un hotel en Lisboa para el puente de mayo, cerca del centro y con desayuno. " * 30
    assert len(long) > 2000 and detect_language(long) == "es"


_WORDS = sorted(
    {w for words in _MARKERS.values() for w in words.split()} | {"Lisboa", "Rome", "hotel", "São", "Paulo"}
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12), st.sampled_from([*LANGUAGES, "xx"]))
@example(["quando", "some"], "en")  # English leads by half a word, the model makes it Portuguese
@example(["cómo", "nuit", "alla", "desde", "at", "about"], "en")
@example(["c'è"], "en")  # its apostrophe counted as a letter made it "another script": English
def test_english_words_decide_only_where_the_model_could_not_change_the_answer(
    words: list[str], default: str
) -> None:
    """Messages whose marker words make them English skip the model; the answer is the one the model
    would have given (mixed-language messages, every conversation language)."""
    text = " ".join(words)
    lowered = [w.lower() for w in words]
    assert detect_language(text, default) == _weighed(text, lowered, _marked(lowered), default)


# --- the message catalogue ---------------------------------------------------------------------------


def test_the_catalogue_has_every_key_in_every_language_with_the_same_placeholders() -> None:
    table = phrases()
    assert set(table) == set(LANGUAGES)
    english = table["en"]
    for lang in LANGUAGES:
        assert set(table[lang]) == set(english), lang
        for key, template in table[lang].items():
            assert template.strip(), (lang, key)
            assert placeholders(template) == placeholders(english[key]), (lang, key)


def test_every_tool_is_named_and_asks_for_every_required_parameter_in_every_language() -> None:
    for name, spec in TOOLS.items():
        for lang in LANGUAGES:
            assert spec.labels.get(lang) and spec.result_labels.get(lang), (name, lang)
            for param in spec.routing["required"]:
                assert spec.asks.get(lang, {}).get(param) or lang == "en", (name, lang, param)
                assert spec.ask(lang, param) != param.replace("_", " "), (name, lang, param)


def test_messages_fall_back_to_english_and_fill_their_placeholders() -> None:
    assert message("es", "unknown_place", name="Zzyzx").startswith("No conozco ningún lugar llamado 'Zzyzx'")
    assert message("xx", "unknown_place", name="Zzyzx") == (
        "I don't know a place called 'Zzyzx' — which city do you mean?"
    )
    asks = [TOOLS["flight_search"].ask("de", "origin"), TOOLS["flight_search"].ask("de", "departure_date")]
    assert message(
        "de", "clarify_tool", what=TOOLS.label("flight_search", "de"), asks=join_list("de", asks)
    ) == ("Für Flüge sag mir bitte, von wo du abfliegst und an welchem Tag du abreisen möchtest.")
    with pytest.raises(KeyError):
        message("en", "no_such_key")


# --- the composer and the LLM prompt -----------------------------------------------------------------

PASSAGE = Passage(
    "guides/lisbon.md",
    "Lisbon",
    "Lisbon > With children",
    "Lisbon > With children\n\nThe Oceanarium is a favourite with children of every age. "
    "Trams climb the hills to the castle every few minutes.",
    "seed",
)


def test_the_composer_speaks_spanish() -> None:
    flights = ToolAnswer("flight_search", ["LIS-MAD 2026-11-22 89 EUR"], sandbox=True)
    weather = ToolAnswer("weather_forecast", error="Provider timed out", code="provider_timeout")
    hotels = ToolAnswer("hotel_search")
    answer = compose_answer(
        "vuelos",
        [PASSAGE],
        [flights, weather, hotels],
        clarify="¿Desde dónde sales?",
        lang="es",
        declared=TOOLS,
    )
    lines = [line for line in answer.text.split("\n") if line]
    assert lines[0] == "Esto es lo que he encontrado: vuelos."
    assert "Vuelos:" in lines and "- LIS-MAD 2026-11-22 89 EUR [1]" in lines
    assert (
        "No he podido obtener el pronóstico del tiempo: el proveedor ha tardado demasiado en responder."
        in lines
    )
    assert "No he encontrado hoteles para esa búsqueda." in lines
    assert message("es", "sandbox_notice") in lines and lines[-2] == "¿Desde dónde sales?"
    # the passage says nothing about flights: it is not cited; the flight is, in Spanish words
    assert lines[-1] == "Fuentes: [1] oferta de vuelo, datos de prueba"
    guides = compose_answer("¿Qué hacer en Lisboa con niños?", [PASSAGE], [], lang="es", declared=TOOLS)
    assert guides.text.startswith("Esto es lo que dice la guía «Lisbon» sobre viajar con niños:")
    assert guides.text.endswith("Fuentes: [1] Lisbon — With children")
    assert compose_answer("?", [], [], lang="es", declared=TOOLS).text.startswith(
        "No tengo ninguna guía que responda a eso."
    )


def test_the_composer_in_english() -> None:
    flights = ToolAnswer(
        "flight_search", ["LIS-MAD 89 EUR"], from_index=True, fetched_at="2026-11-21 09:00 UTC"
    )
    weather = ToolAnswer("weather_forecast", error="Provider timed out", code="provider_timeout")
    text = compose_answer("flights", [], [flights, weather], declared=TOOLS).text
    assert [line for line in text.split("\n") if line] == [
        "Here is what I found for flights.",
        "Flights (from results fetched at 2026-11-21 09:00 UTC):",
        "- LIS-MAD 89 EUR [1]",
        "I couldn't get the forecast: Provider timed out",
        "Sources: [1] flight offer, fetched 2026-11-21 09:00 UTC",
    ]


def test_the_llm_prompt_asks_for_the_travellers_language() -> None:
    writer = LLMWriter(
        AsyncOpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1"), "m", today=lambda: TODAY
    )
    assert "Write the whole answer in French" in writer.system_prompt({}, "(no data)", "fr")
    assert "Write the whole answer in English" in writer.system_prompt({}, "(no data)")
    assert "Write the whole answer in English" in writer.system_prompt({}, "(no data)", "xx")


# --- through the service -----------------------------------------------------------------------------


async def _chat(client: Any, text: str, user: str = "u-i18n") -> dict[str, Any]:
    resp = await client.post("/v1/chat", json={"user_id": user, "message": text})
    assert resp.status == 200, await resp.text()
    return dict(await resp.json())


@pytest.fixture(scope="module")
def client(shared_client: TestClient) -> TestClient:
    return shared_client


async def test_a_spanish_question_is_answered_with_spanish_phrases(client) -> None:  # type: ignore[no-untyped-def]
    body = await _chat(client, "¿Qué puedo hacer en Lisboa con niños?", "u-phrases")
    assert body["text"].startswith("Esto es lo que dice la guía"), body["text"]
    assert "\n\nFuentes: [1] " in body["text"]


async def test_a_spanish_question_is_answered_from_the_lisbon_guide(client) -> None:  # type: ignore[no-untyped-def]
    body = await _chat(client, "¿Qué puedo hacer en Lisboa con niños?", "u-guide")
    docs = [s["id"] for s in body["sources"] if s["kind"] == "document"]
    assert docs and all(d.startswith(("guides/lisbon", "topics/")) for d in docs), docs


@pytest.mark.asyncio(loop_scope="function")  # its own app, on its own loop
async def test_the_model_is_told_to_answer_in_the_messages_language(llm_chat) -> None:  # type: ignore[no-untyped-def]
    script, client = llm_chat
    script.replies = [("tools", {}), ("stream", "Le Colisée se visite le matin [1].")]
    body = await _chat(client, "Que voir à Rome en deux jours ?")
    answer, line = body["text"].split("\n")
    assert answer == "Le Colisée se visite le matin [1]." and line.startswith("Sources : [1] ")
    system = script.requests[-1]["messages"][0]["content"]
    assert "Write the whole answer in French" in system


# --- through the real router -------------------------------------------------------------------------


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def router() -> AsyncIterator[Router]:
    emb = await OnnxEmbedder.load(EmbeddingSettings())

    async def embed(texts: list[str]) -> list[list[float]]:
        return await emb.embed_documents(texts)

    yield await Router.create(load_config(), LocationCatalogue.load(), TOOLS, embed, today=lambda: TODAY)
    await emb.close()


@pytest.mark.parametrize(
    ("text", "tool", "params"),
    [
        (
            "Hotel en Lisboa del 12 al 15 de mayo",
            "hotel_search",
            {"city": "LIS", "check_in": "2027-05-12", "check_out": "2027-05-15"},
        ),
        (
            "vols de Paris à Rome le 4 avril",
            "flight_search",
            {"origin": "PAR", "destination": "ROM", "departure_date": "2027-04-04"},
        ),
        ("Wetter in München morgen", "weather_forecast", {"start_date": "2026-11-22"}),
        (
            "voos de Lisboa para Madrid amanhã",
            "flight_search",
            {"origin": "LIS", "destination": "MAD", "departure_date": "2026-11-22"},
        ),
        ("meteo a Firenze domani", "weather_forecast", {"start_date": "2026-11-22"}),
        (
            "albergo a Roma per tre notti dal 5 maggio",
            "hotel_search",
            {"city": "ROM", "check_in": "2027-05-05", "nights": 3},
        ),
    ],
)
async def test_other_languages_pick_the_right_tool(
    router: Router, text: str, tool: str, params: dict[str, Any]
) -> None:
    d = await router.route(text)
    assert [t.name for t in d.tools] == [tool] and not d.missing, (d.tools, d.missing)
    assert params.items() <= d.tools[0].params.items(), d.tools[0].params


async def test_the_weather_place_keeps_its_city(router: Router) -> None:
    munich = (await router.route("Wetter in München morgen")).tools[0].params["city"]
    florence = (await router.route("meteo a Firenze domani")).tools[0].params["city"]
    assert munich in ("Munich", "München") and florence in ("Florence", "Firenze")


@pytest.mark.parametrize(
    "text",
    [
        "¿Qué puedo hacer en Lisboa con niños?",
        "Que voir à Rome en deux jours ?",
        "was kann man in Berlin machen",
        "o que fazer em Lisboa",
        "cosa vedere a Roma",
        "dónde alojarse en Madrid",
        "cuántos habitantes tiene Madrid",
        "merci beaucoup",
    ],
)
async def test_other_language_knowledge_questions_call_no_tool(router: Router, text: str) -> None:
    d = await router.route(text)
    assert d.tools == [] and d.missing == {} and d.use_rag, (d.tools, d.missing)


@pytest.mark.parametrize(
    "text",
    ["hotel en Madrid el 31 de febrero", "vuelos de Madrid a Roma el 12 de mayo de 2020"],
)
async def test_impossible_or_past_dates_are_asked_for_not_guessed(router: Router, text: str) -> None:
    d = await router.route(text)
    assert d.tools == [] and d.missing, (d.tools, d.missing)
    assert any("date" in p or p == "check_in" for params in d.missing.values() for p in params)

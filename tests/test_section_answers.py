"""Answers from the section that answers, whole, in six languages, and day-by-day plans (issue 23).

The composer over whole real seed guides, chunked by the real chunker (as the chat hands them after
reading the asked place's guide whole: rag.chat.service ``_whole_guide``); then once through the real
app over HTTP.
"""

from __future__ import annotations

import re

import pytest
from aiohttp.test_utils import TestClient

from rag.chat.composer import Answer
from rag.chat.plans import asks_length, trip_days
from rag.chat.selection import read_question
from rag.i18n import message
from tests.answering import answer as compose_answer
from tests.test_composer import TOOLS, body, check_citations, passages

pytestmark = pytest.mark.asyncio(loop_scope="module")

_CITE = re.compile(r"\[(\d+)\]")


def guide(city: str) -> list:  # type: ignore[type-arg]
    return passages(f"guides/{city}.md")


def cited_sections(answer: Answer) -> set[str]:
    return {c.label for c in answer.citations}


def quoted_lines(answer: Answer) -> list[str]:
    return [line for line in body(answer).splitlines() if _CITE.search(line)]


def test_what_to_see_lists_the_sights_whole() -> None:
    answer = compose_answer(
        "What should I see in Lisbon?", guide("lisbon"), [], places=["Lisbon"], declared=TOOLS
    )
    check_citations(answer)
    assert cited_sections(answer) == {"Lisbon City Guide — Sights"}, answer.text
    lines = quoted_lines(answer)
    assert len(lines) >= 5, answer.text
    for sight in ("Jerónimos Monastery", "Belém Tower", "São Jorge Castle", "Oceanário", "LX Factory"):
        assert any(line.startswith(f"- {sight}") for line in lines), (sight, answer.text)
    assert "Closed Mondays; arrive early" in answer.text  # the item's second sentence comes with it


def test_as_many_as_asked() -> None:
    answer = compose_answer("top 3 sights in Lisbon", guide("lisbon"), [], places=["Lisbon"], declared=TOOLS)
    assert len(quoted_lines(answer)) == 3, answer.text


@pytest.mark.parametrize(
    ("lang", "question", "section"),
    [
        ("es", "¿Qué comer en Lisboa?", "Food and drink"),
        ("fr", "Que voir à Lisbonne ?", "Sights"),
        ("de", "Wie kommt man in Lissabon herum? Metro oder Tram?", "Getting around"),
        ("pt", "Quanto custa um dia em Lisboa?", "Costs"),
        ("it", "Quando andare a Lisbona?", "Best time to visit"),
        ("es", "¿Qué tiempo hace en Lisboa en mayo?", "Best time to visit"),
        ("en", "Is a weekend enough for Lisbon?", "Overview"),
        ("de", "Tipps für eine Reise nach Lissabon?", "Practical tips"),
    ],
)
def test_every_language_lands_in_the_section_that_answers(lang: str, question: str, section: str) -> None:
    answer = compose_answer(question, guide("lisbon"), [], lang=lang, places=["Lisbon"], declared=TOOLS)
    check_citations(answer, lang)
    assert cited_sections(answer) == {f"Lisbon City Guide — {section}"}, answer.text
    if lang != "en":  # the quotes are the English guide's words, and the answer says so
        assert message(lang, "quoted_english") in answer.text


def test_a_month_picks_its_season_and_no_other() -> None:
    answer = compose_answer(
        "What's the weather in Lisbon in May?", guide("lisbon"), [], places=["Lisbon"], declared=TOOLS
    )
    lines = quoted_lines(answer)
    assert len(lines) == 1 and lines[0].startswith("- Spring (March–May)"), answer.text


def test_prose_is_quoted_in_whole_sentences_without_a_stray_label() -> None:
    answer = compose_answer(
        "Where can I eat well in Lisbon?", guide("lisbon"), [], places=["Lisbon"], declared=TOOLS
    )
    assert cited_sections(answer) == {"Lisbon City Guide — Food and drink"}, answer.text
    for line in quoted_lines(answer):
        assert not line.startswith(("Ginjinha:", "It ", "They ", "This ")), answer.text
        assert line.rstrip(" [1]").endswith((".", "!", "?", ")")), line


def plan_days(answer: Answer) -> list[tuple[int, list[str]]]:
    """Each "**Day n**" block's number and lines."""
    days: list[tuple[int, list[str]]] = []
    for line in body(answer).splitlines():
        m = re.fullmatch(r"\*\*\w+ (\d+)\*\*", line.strip())
        if m:
            days.append((int(m.group(1)), []))
        elif days and line.strip():
            days[-1][1].append(line)
    return days


@pytest.mark.parametrize(
    ("lang", "question", "days", "city"),
    [
        ("en", "I have 3 days in Kyoto", 3, "kyoto"),
        ("en", "Plan 4 days in Lisbon in May", 4, "lisbon"),
        ("de", "Ein Wochenende in Paris mit Kindern", 2, "paris"),
        ("fr", "J'ai 5 jours à Tokyo, que me conseilles-tu ?", 5, "tokyo"),
    ],
)
def test_a_trip_length_gets_a_cited_day_by_day_plan(lang: str, question: str, days: int, city: str) -> None:
    place = guide(city)[0].place
    answer = compose_answer(question, guide(city), [], lang=lang, places=[place], declared=TOOLS, days=days)
    check_citations(answer, lang)
    blocks = plan_days(answer)
    assert [n for n, _ in blocks] == list(range(1, days + 1)), answer.text
    assert all(lines and all(_CITE.search(x) for x in lines) for _, lines in blocks), answer.text
    title = guide(city)[0].title
    assert all(label.startswith(f"{title} — ") for label in cited_sections(answer)), answer.text
    assert message(lang, "plan_note") in answer.text  # honest about what the guide does not give


def test_a_plan_for_a_month_says_its_season_and_a_day_trip_takes_a_day() -> None:
    answer = compose_answer(
        "Plan 4 days in Lisbon in May", guide("lisbon"), [], places=["Lisbon"], declared=TOOLS, days=4
    )
    assert "For May, the guide says:" in answer.text and "Spring (March–May)" in answer.text
    last = plan_days(answer)[-1][1]
    assert len(last) == 1 and "Sintra" in last[0], answer.text
    # Belém's two sights on the same day.
    belem = [n for n, lines in plan_days(answer) if any("Belém" in x for x in lines)]
    assert len(set(belem)) == 1, answer.text


def test_when_a_plan_is_asked_and_when_it_is_not() -> None:
    def days(question: str) -> int | None:
        return trip_days(question, read_question(question, []).topics)

    assert days("I have 3 days in Kyoto") == 3
    assert days("Un week-end à Londres avec des enfants") == 2
    assert days("Organizzami quattro giorni a Istanbul") == 4
    assert days("Is a weekend enough for Hong Kong?") is None and asks_length(
        "Is a weekend enough for Hong Kong?"
    )
    assert days("Quanto custa um dia em Nova York?") is None  # a question about costs
    assert days("What should I see in Rome?") is None


def test_a_place_without_a_guide_is_said_plainly_first() -> None:
    answer = compose_answer("What to see in Sintra?", guide("lisbon"), [], places=["Sintra"], declared=TOOLS)
    assert answer.text.startswith("I don't have a guide for Sintra. Here is what the Lisbon guide says"), (
        answer.text
    )
    assert all("Sintra" in c.excerpt for c in answer.citations), answer.text


async def test_the_chat_reads_the_whole_guide(shared_client: TestClient) -> None:
    resp = await shared_client.post(
        "/v1/chat", json={"user_id": "sections", "message": "¿Qué ver en Lisboa?"}
    )
    assert resp.status == 200
    got = await resp.json()
    sights = [s for s in got["sources"] if s.get("section") == "Sights"]
    assert got["tool_calls"] == [] or all(c["name"] != "flight_search" for c in got["tool_calls"])
    assert sights and sights[0]["id"] == "guides/lisbon", got["sources"]
    items = [line for line in got["text"].splitlines() if line.startswith("- ")]
    assert len(items) >= 5, got["text"]
    assert "Esto es lo que dice la guía de Lisbon" in got["text"], got["text"]

    plan = await shared_client.post(
        "/v1/chat", json={"user_id": "sections-plan", "message": "I have 3 days in Tokyo"}
    )
    text = (await plan.json())["text"]
    assert all(f"**Day {n}**" in text for n in (1, 2, 3)) and "**Day 4**" not in text, text


async def test_a_place_nobody_knows_gets_no_other_city_s_text(shared_client: TestClient) -> None:
    resp = await shared_client.post(
        "/v1/chat", json={"user_id": "sections-nowhere", "message": "What to see in Grimsby-on-the-Wold?"}
    )
    got = await resp.json()
    assert resp.status == 200 and "I don't have a guide" in got["text"], got["text"]
    assert not any(str(s.get("id", "")).startswith("guides/") for s in got["sources"]), got["sources"]

"""The extractive composer over the real seed guides, chunked by the real chunker. Pure and fast.

Passages are built the way the index stores them (rag.ingest: chunk_markdown, then chunk_payload) and
read back with passage_from_payload, so the composer sees what search hands the chat.
"""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rag.chat.composer import (
    Answer,
    Passage,
    ToolAnswer,
    escape_markdown,
    is_comparison,
    markdown_to_text,
    passage_from_payload,
)
from rag.chat.sentences import split_passage
from rag.i18n import message
from rag.ingest.chunking import chunk_markdown
from rag.ingest.documents import chunk_payload
from rag.ingest.seeding import load_documents
from rag.settings import SEED_DIR
from rag.tools.catalog import ToolCatalogue
from tests.answering import answer as compose_answer

TOOLS = ToolCatalogue.builtin()

HOSTILE = "<img src=x onerror=alert(1)> **Free** [win](javascript:x)"


@functools.cache
def _chunks(rel: str) -> tuple[Passage, ...]:
    (doc,) = load_documents([SEED_DIR / rel])
    chunks = chunk_markdown(doc.text, doc.title)
    return tuple(
        passage_from_payload(
            f"{doc.id}#{c.index}", chunk_payload(doc, c.index, len(chunks), c.heading, c.text)
        )
        for c in chunks
    )


def passages(rel: str, *sections: str) -> list[Passage]:
    """The chunks of seed file ``rel`` (of the given sections, in that order; all when none given)."""
    chunks = _chunks(rel)
    if not sections:
        return list(chunks)
    return [c for s in sections for c in chunks if c.heading.endswith(f"> {s}")]


def body(answer: Answer) -> str:
    """The answer without its Sources line."""
    return answer.text.rsplit("\n\n", 1)[0] if answer.citations else answer.text


def facts(answer: Answer) -> list[str]:
    """The answer's cited lines that quote a guide."""
    return [line for line in body(answer).split("\n") if re.search(r"\[\d+\]$", line)]


def check_citations(answer: Answer, lang: str = "en") -> None:
    """[n] numbers 1..N in order of first appearance, one Sources line listing exactly those, and
    ``citations`` in the same order with their excerpts quoted in the text."""
    text = body(answer)
    seen = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", text)))
    assert seen == list(range(1, len(seen) + 1)), seen
    assert len(answer.citations) == len(seen)
    if not seen:
        assert "[1]" not in answer.text
        return
    last = answer.text.rsplit("\n\n", 1)[1]
    listed = "; ".join(f"[{n}] {escape_markdown(c.label)}" for n, c in enumerate(answer.citations, 1))
    assert last == message(lang, "sources", sources=listed)
    for c in answer.citations:
        assert c.excerpt and c.label
        for piece in c.excerpt.split(" … "):
            assert escape_markdown(piece) in text, piece


def test_the_weather_in_tokyo_is_answered_from_its_seasons_not_a_pasted_passage() -> None:
    question = "what will the weather be like in Tokyo?"
    found = (
        passages("guides/tokyo.md", "Best time to visit", "Overview")
        + passages("topics/when-to-visit.md", "Spring (March–May)")
        + passages("guides/tokyo.md", "Neighbourhoods")
    )
    answer = compose_answer(question, found, [], places=["Tokyo"], declared=TOOLS)
    lead = answer.text.split("\n")[0]
    assert lead == "Here is what the Tokyo guide says about the weather in Tokyo:"
    lines = facts(answer)
    assert 2 <= len(lines) <= 4, answer.text
    assert all(line.startswith(("- Spring", "- Summer", "- Autumn", "- Winter")) for line in lines)
    # Each season's item whole (Golden Week is spring's), nothing of the other sections.
    for leftover in ("**", "- **", "Spring Festival", "Shinjuku"):
        assert leftover not in answer.text, answer.text
    assert [c.label for c in answer.citations] == ["Tokyo City Guide — Best time to visit"]
    assert answer.citations[0].ref == ("passage", 0, 0)
    check_citations(answer)


def test_a_month_narrows_the_answer_and_notes_follow_the_lead() -> None:
    note = "The forecast for 10–14 April becomes available around 25 March."
    found = passages("guides/tokyo.md", "Best time to visit", "Overview")
    answer = compose_answer(
        "what will the weather be like in Tokyo in April?",
        found,
        [],
        places=["Tokyo"],
        notes=[note],
        declared=TOOLS,
    )
    blocks = answer.text.split("\n\n")
    assert "the weather in Tokyo" in blocks[0] and blocks[1] == note
    quoted = " ".join(facts(answer))
    assert "Spring (March–May)" in quoted and "Winter" not in quoted and "Summer" not in quoted
    check_citations(answer)


def test_a_comparison_gives_each_place_its_own_block_in_the_order_asked() -> None:
    question = "Is Lisbon or Porto better for a weekend?"
    places = ["Lisbon", "Porto"]
    assert is_comparison(question, places)
    found = passages("guides/lisbon.md", "Overview", "Costs") + passages(
        "topics/trip-planning-by-duration.md", "A weekend (2–3 days)"
    )
    answer = compose_answer(question, found, [], places=places, compare=True, declared=TOOLS)
    text = answer.text
    assert text.index("### Lisbon") < text.index("### Porto")
    lisbon, porto = text.split("### Lisbon", 1)[1].split("### Porto")
    assert "Three days covers the city" in lisbon
    assert message("en", "no_guide", place="Porto") in porto
    assert all(c.label.startswith("Lisbon City Guide") for c in answer.citations)
    check_citations(answer)


def test_a_comparison_of_two_guides_quotes_each_on_the_same_topic() -> None:
    places = ["Barcelona", "Lisbon"]
    found = passages("guides/barcelona.md", "Food and drink", "Sights") + passages(
        "guides/lisbon.md", "Food and drink", "Neighbourhoods"
    )
    answer = compose_answer(
        "Barcelona or Lisbon for food?", found, [], places=places, compare=True, declared=TOOLS
    )
    assert answer.text.split("\n")[0] == message(
        "en", "lead_compare", places="Barcelona and Lisbon", topic=message("en", "topic.food")
    )
    barcelona, lisbon = answer.text.split("### Barcelona", 1)[1].split("### Lisbon")
    assert "Barcelona City Guide — Food and drink" in {c.label for c in answer.citations}
    assert re.search(r"\[\d+\]", barcelona) and re.search(r"\[\d+\]", lisbon)
    check_citations(answer)


@pytest.mark.parametrize(
    ("question", "places", "expected"),
    [
        ("Lisbon or Porto?", ["Lisbon", "Porto"], True),
        ("Paris vs Rome for a city break", ["Paris", "Rome"], True),
        ("compare Kyoto and Tokyo", ["Kyoto", "Tokyo"], True),
        ("¿Lisboa o Oporto para un fin de semana?", ["Lisbon", "Porto"], True),
        ("flights from Lisbon to Porto", ["Lisbon", "Porto"], False),
        ("Voos de Lisboa para o Porto", ["Lisbon", "Porto"], False),
        ("Lisbon or Porto?", ["Lisbon"], False),
    ],
)
def test_comparisons_are_recognised(question: str, places: list[str], expected: bool) -> None:
    assert is_comparison(question, places) is expected


def test_a_question_the_guides_cannot_answer_gets_an_honest_answer_and_offers() -> None:
    found = passages("guides/tokyo.md", "Overview", "Neighbourhoods", "Sights")
    answer = compose_answer("is there a casino on the moon base?", found, [], declared=TOOLS)
    assert answer.citations == [] and "[1]" not in answer.text
    assert answer.text.startswith(message("en", "nothing"))
    assert "flights, hotels, activities and the forecast" in answer.text
    assert "Tokyo City Guide — Neighbourhoods" in answer.text  # offered as a related topic, not quoted
    assert "convenient, well-connected base" not in answer.text


def test_a_place_without_a_guide_is_named_in_the_honest_compose_answer() -> None:
    found = passages("topics/when-to-visit.md")[:3]
    answer = compose_answer("Ulaanbaatar nightlife?", found, [], places=["Ulaanbaatar"], declared=TOOLS)
    assert answer.text.startswith(message("en", "nothing_place", place="Ulaanbaatar"))
    assert answer.citations == []


def test_another_citys_guide_is_not_quoted_for_the_asked_place() -> None:
    found = passages("guides/paris.md", "Best time to visit") + passages(
        "guides/tokyo.md", "Best time to visit"
    )
    answer = compose_answer(
        "When is the best time to visit Tokyo?", found, [], places=["Tokyo"], declared=TOOLS
    )
    assert [c.label for c in answer.citations] == ["Tokyo City Guide — Best time to visit"]
    assert answer.citations[0].ref == ("passage", 1, 0)


def test_a_place_without_a_guide_is_answered_by_the_guide_that_names_it() -> None:
    # Fushimi (a town of its own in the catalogue) has no guide; Kyoto's says how to beat its crowds,
    # and Kyoto's sentences that do not name it are not an answer about Fushimi.
    answer = compose_answer(
        "How can I avoid the crowds at Fushimi Inari?",
        passages("guides/kyoto.md"),
        [],
        places=["Fushimi"],
        declared=TOOLS,
    )
    # Said plainly first: Fushimi has no guide of its own.
    assert answer.text.startswith("I don't have a guide for Fushimi. Here is what the Kyoto guide says")
    assert "go at dawn" in body(answer) and all(
        "Fushimi" in c.excerpt or "dawn" in c.excerpt for c in answer.citations
    )
    assert [c.label for c in answer.citations] == ["Kyoto City Guide — Sights"]


def test_search_text_keeps_the_travellers_words_beside_the_guides_names() -> None:
    import datetime as dt

    from connectors.places import LocationCatalogue
    from rag.chat.focus import search_text
    from rag.routing.extract import extract

    catalogue = LocationCatalogue.load()
    text = "What's the best way up to Victoria Peak?"  # Victoria is Hong Kong's old name
    assert search_text(text, extract(text, catalogue, dt.date(2026, 11, 23))) == text + " (Hong Kong)"
    text = "¿Es caro viajar a Londres?"
    assert search_text(text, extract(text, catalogue, dt.date(2026, 11, 23), lang="es")).endswith("(London)")


def test_tool_results_are_cited_and_escaped_and_numbered_before_the_guides() -> None:
    hotels = ToolAnswer(
        "hotel_search",
        [HOSTILE, "Hotel B, 120 EUR a night"],
        sandbox=True,
        provider="sandbox",
        fetched_at="2026-11-23 01:40 UTC",
        ids=["h1", "h2"],
    )
    found = passages("guides/tokyo.md", "Neighbourhoods", "Overview")
    answer = compose_answer("hotels in Tokyo", found, [hotels], places=["Tokyo"], declared=TOOLS)
    lines = answer.text.split("\n")
    assert lines[0] == "Here is what I found for hotels."
    assert r"- \<img src=x onerror=alert(1)\> \*\*Free\*\* \[win\](javascript:x) [1]" in lines
    assert "- Hotel B, 120 EUR a night [2]" in lines
    assert [c.ref for c in answer.citations[:2]] == [("result", 0, 0), ("result", 0, 1)]
    assert answer.citations[0].excerpt == HOSTILE  # the data as it is; only the text escapes it
    label = "hotel offer, sandbox, fetched 2026-11-23 01:40 UTC, sandbox data"
    assert answer.citations[0].label == label and f"[1] {label}; [2] {label}; [3] " in lines[-1]
    assert message("en", "sandbox_notice") in lines
    check_citations(answer)


def test_escaped_provider_text_renders_as_plain_text() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    hotels = ToolAnswer(
        "hotel_search", [HOSTILE, "# Title\n- [x](http://a) `code` | a | ~~s~~", "12. Hotel", "+ Inn"]
    )
    rendered = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("strikethrough")
    html = rendered.render(compose_answer("hotels", [], [hotels], declared=TOOLS).text)
    assert "<img" not in html and "<a " not in html and "<strong>" not in html and "<h1>" not in html
    assert "<code>" not in html and "<s>" not in html and "<ol" not in html and "<ul>\n<li><ul>" not in html
    assert "<li>12. Hotel [3]</li>" in html and "<li>+ Inn [4]</li>" in html
    assert "&lt;img src=x onerror=alert(1)&gt; **Free** [win](javascript:x) [1]" in html


def test_a_documents_title_and_the_travellers_words_are_escaped_too() -> None:
    doc = Passage(
        "notes", "<b>My notes</b>", "<b>My notes</b> > Food", "Street food in Hanoi is cheap and good.", "api"
    )
    answer = compose_answer(
        "street food",
        [doc],
        [],
        clarify="I don't know a place called '<img src=x>'.",
        notes=["**x**"],
        declared=TOOLS,
    )
    assert (
        answer.text.split("\n")[0]
        == r'Here is what the "\<b\>My notes\</b\>" guide says about food and drink:'
    )
    assert r"'\<img src=x\>'" in answer.text and r"\*\*x\*\*" in answer.text
    assert not re.search(r"(?<!\\)[<>*]", answer.text)  # none unescaped


def test_recalled_results_are_cited() -> None:
    answer = compose_answer(
        "what hotels did you find?", [], [], recalled=["Hotel A, 100 EUR", "Hotel B"], declared=TOOLS
    )
    assert answer.text.startswith(message("en", "lead_recalled"))
    assert "- Hotel A, 100 EUR [1]" in answer.text and "- Hotel B [2]" in answer.text
    assert [c.ref for c in answer.citations] == [("recalled", 0, 0), ("recalled", 1, 0)]
    check_citations(answer)


@pytest.mark.parametrize(
    ("lang", "question", "lead", "sources", "hotel"),
    [
        (
            "es",
            "¿Qué tiempo hace en Tokio?",
            "Esto es lo que dice la guía de Tokyo sobre el tiempo en Tokyo:",
            "Fuentes:",
            "oferta de hotel, sandbox, obtenido el 2026-11-23 01:40 UTC, datos de prueba",
        ),
        (
            "fr",
            "Quel temps fait-il à Tokyo ?",
            "Voici ce que dit le guide de Tokyo sur la météo à Tokyo :",
            "Sources :",
            "offre d'hôtel, sandbox, obtenu le 2026-11-23 01:40 UTC, données de test",
        ),
    ],
)
def test_other_languages_lead_and_source_in_their_words(
    lang: str, question: str, lead: str, sources: str, hotel: str
) -> None:
    found = passages("guides/tokyo.md", "Best time to visit", "Overview")
    guide = "Tokyo City Guide — Best time to visit"
    answer = compose_answer(question, found, [], places=["Tokyo"], lang=lang, declared=TOOLS)
    assert answer.text.split("\n")[0] == lead
    assert answer.text.split("\n")[-1] == f"{sources} [1] {guide}"
    hotels = ToolAnswer(
        "hotel_search", ["Hotel A"], sandbox=True, provider="sandbox", fetched_at="2026-11-23 01:40 UTC"
    )
    with_hotels = compose_answer(question, found, [hotels], places=["Tokyo"], lang=lang, declared=TOOLS)
    assert with_hotels.text.split("\n")[0] == message(
        lang, "lead_found", tools=TOOLS["hotel_search"].label(lang)
    )
    assert with_hotels.text.split("\n")[-1] == f"{sources} [1] {hotel}; [2] {guide}"
    check_citations(with_hotels, lang)


def test_every_answer_over_the_corpus_cites_consistently_and_quotes_clean_text() -> None:
    questions = {
        "Food and drink": "What should I eat in {city}?",
        "Getting around": "How do I get from the airport to the centre of {city}?",
        "Costs": "Is {city} expensive?",
        "Neighbourhoods": "Which neighbourhood should I stay in, in {city}?",
        "Best time to visit": "When is the best time to go to {city}?",
    }
    hotels = ToolAnswer("hotel_search", ["Hotel A"], provider="sandbox", fetched_at="2026-11-23 01:40 UTC")
    for rel in sorted(p.name for p in (SEED_DIR / "guides").glob("*.md")):
        guide = passages(f"guides/{rel}")
        city = guide[0].place
        for section, question in questions.items():
            found = [p for p in guide if p.heading.endswith(section)][:1] + guide[:2]
            for tools in ([], [hotels]):
                answer = compose_answer(
                    question.format(city=city), found, tools, places=[city], declared=TOOLS
                )
                check_citations(answer)
                assert "**" not in answer.text and "- -" not in answer.text, answer.text
                # A list section's items whole (rag.chat.sections.MOST_ITEMS), else a few sentences.
                most = 10 if section in ("Neighbourhoods", "Best time to visit") else 4
                assert len(facts(answer)) <= most + len(tools), answer.text
                assert f"{guide[0].title} — {section}" in {c.label for c in answer.citations}, (
                    question,
                    answer.text,
                )


def test_overview_for_a_question_about_the_place_alone() -> None:
    found = passages("guides/tokyo.md", "Sights", "Overview")
    answer = compose_answer("Tell me about Tokyo", found, [], places=["Tokyo"], declared=TOOLS)
    assert answer.text.startswith("Here is what the Tokyo guide says about Tokyo:")
    assert [c.label for c in answer.citations] == ["Tokyo City Guide — Overview"]


def test_markdown_is_stripped_from_quotes() -> None:
    assert markdown_to_text("- **Day trips**: see [Nikko](http://x) and `Kamakura`") == (
        "Day trips: see Nikko and Kamakura"
    )
    assert (
        markdown_to_text("1. *Jordaan* and __Pijp__, snake_case stays")
        == "Jordaan and Pijp, snake_case stays"
    )
    text = passages("guides/tokyo.md", "Neighbourhoods")[0].text
    sentences = split_passage(text, passages("guides/tokyo.md", "Neighbourhoods")[0].heading)
    assert sentences[0].text.startswith("Shinjuku – A major transport hub")
    assert all("**" not in s.text and not s.text.startswith("-") for s in sentences)


@given(st.text(max_size=80))
def test_escaped_text_unescapes_to_the_original(s: str) -> None:
    escaped = escape_markdown(s)
    assert "\n" not in escaped
    assert re.sub(r"\\(.)", r"\1", escaped) == " ".join(s.split())
    assert not re.search(r"(?<!\\)[*_\[\]<>`|~]", re.sub(r"\\\\", "", escaped))

"""The multilingual answer set's scoring heuristics (scripts/answer_scoring.py): pure, no app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.answer_scoring import (
    bold_names,
    day_markers,
    fragments,
    guide_items,
    item_keys,
    items_quoted,
    language_of,
    plan_marks,
    quotes,
    says_no_guide,
    score_row,
)

GUIDE = """---
title: Lisbon City Guide
city: Lisbon
---

## Neighbourhoods

- **Baixa**: the flat grid rebuilt after 1755. Central, well connected, busy by day.
- **Eixample**: the 19th-century grid with many mid-range hotels. Comfortable and well connected.

## Sights

- **Jerónimos Monastery** in Belém: a masterpiece of the Manueline style. Closed Mondays.
- **National Tile Museum (Museu Nacional do Azulejo)**: five centuries of tiles.
- **Miradouros (viewpoints)**: free and spectacular.

**Day trips**: Sintra's palaces are about 40 minutes by train. Trains from Cais do Sodré run to Cascais.

## Food and drink

Portuguese food is generous. It is seafood-focused. **Ginjinha**, a sour cherry liqueur, is sold by the shot. Many tascas offer a dish of the day at lunch.
"""
ITEMS = guide_items(GUIDE)
LABELS = bold_names(GUIDE)
CATALOGUE = {
    "en": {
        "no_guide": "I don't have a guide for {place}.",
        "nothing_place": "I don't have a guide that answers that for {place}.",
        "lead_no_guide": "I don't have a guide for {place}; here is what the guides say about {topic} in general:",
        "lead_topic": "Here is what {source} says about {topic}:",
    },
    "es": {
        "no_guide": "No tengo una guía de {place}.",
        "nothing_place": "No tengo ninguna guía que responda a eso sobre {place}.",
        "lead_no_guide": "No tengo una guía de {place}; esto es lo que dicen en general las guías sobre {topic}:",
        "lead_topic": "Esto es lo que dice {source} sobre {topic}:",
    },
}


def _fragments(body: str) -> list[str]:
    return fragments(quotes(body), ITEMS, LABELS)


def test_guide_items_keep_labels_bullets_and_sections() -> None:
    first = ITEMS[0]
    assert (first.section, first.label, first.bullet) == ("Neighbourhoods", "Baixa", True)
    trips = next(i for i in ITEMS if i.label == "Day trips")
    assert (trips.section, trips.bullet) == ("Sights", False)
    assert ITEMS[-1].label == "" and ITEMS[-1].text.startswith("Portuguese food")


@pytest.mark.parametrize(
    "line",
    [
        "- Baixa: the flat grid rebuilt after 1755. Central, well connected, busy by day. [1]",
        "- Eixample: Comfortable and well connected. [1]",  # the label said, so the subject is there
        "Portuguese food is generous. [1]",
        "Ginjinha, a sour cherry liqueur, is sold by the shot. [1]",  # a paragraph's middle stands alone
        "Trains from Cais do Sodré run to Cascais. [1]",  # a labelled paragraph, not a list item
        "- Flight LIS-OPO, 09:10, €49. [2]",  # not from a guide: judged by its first word only
    ],
)
def test_whole_quotes_are_not_fragments(line: str) -> None:
    assert _fragments(line) == []


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Comfortable and well connected. [1]", "no_subject"),
        ("- Central, well connected, busy by day. [1]", "no_subject"),
        ("Closed Mondays. Something else entirely here. [1]", None),  # not in the guide: not judged
        ("It is seafood-focused. [1]", "pronoun"),
        ("They run every ten minutes. [3]", "pronoun"),  # not located, still a pronoun opening
        ("Ginjinha: Many tascas offer a dish of the day at lunch. [1]", "label_mismatch"),
        ("Baixa: Comfortable and well connected. [1]", "label_mismatch"),
    ],
)
def test_fragments_are_named(line: str, kind: str | None) -> None:
    found = _fragments(line)
    assert [f.split(":")[0] for f in found] == ([kind] if kind else [])


def test_quotes_strip_bullets_numbers_and_marks() -> None:
    body = "Here is what the Lisbon guide says:\n\n- Baixa: central. [1]\n2. Chiado: cafés [2][3]\nNo mark."
    assert [(q.line, q.numbers) for q in quotes(body)] == [
        ("Baixa: central.", (1,)),
        ("Chiado: cafés", (2, 3)),
    ]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Day 1: Belém [1]", [1]),
        ("**Día 2** — Alfama [1]", [2]),
        ("### Jour 3", [3]),
        ("2. Tag: Museumsinsel", [2]),
        ("1er jour : Belém", [1]),
        ("3º dia - Sintra", [3]),
        ("Giorno 4", [4]),
        ("Primer día: Baixa", [1]),
        ("Erster Tag", [1]),
        ("Premier jour", [1]),
        ("Day one", [1]),
        ("Day trips: Sintra's palaces [1]", []),
        ("On day 2 we walked.", []),
        ("Tagesausflug nach Sintra", []),
        ("Sunday 1 June", []),
    ],
)
def test_day_markers(text: str, days: list[int]) -> None:
    assert day_markers(text) == days


def test_plan_needs_every_day_every_line_cited_and_the_own_guide() -> None:
    plan = "Here is a plan:\n\nDay 1\n- Belém [1]\n- Tram 28 [1]\n\nDay 2\n- Sintra [1]\n\nDay 3: Alfama [1]"
    marks = plan_marks(plan, 3, ["guides/lisbon"], "guides/lisbon")
    assert marks == {"day_blocks": 3, "plan_days": True, "plan_cited": True, "plan_own_guide": True}
    assert not plan_marks(plan, 4, ["guides/lisbon"], "guides/lisbon")["plan_days"]
    assert not plan_marks(plan.replace("- Sintra [1]", "- Sintra"), 3, ["guides/lisbon"], "guides/lisbon")[
        "plan_cited"
    ]
    assert not plan_marks(plan, 3, ["guides/lisbon", "topics/budget-travel"], "guides/lisbon")[
        "plan_own_guide"
    ]
    assert plan_marks("Nothing like a plan [1]", 3, ["guides/lisbon"], "guides/lisbon")["day_blocks"] == 0


def test_list_items_count_only_when_a_quote_opens_on_them() -> None:
    assert item_keys("National Tile Museum (Museu Nacional do Azulejo)") == [
        "National Tile Museum (Museu Nacional do Azulejo)",
        "National Tile Museum",
        "Museu Nacional do Azulejo",
    ]
    assert item_keys("Miradouros (viewpoints)") == ["Miradouros (viewpoints)", "Miradouros"]
    assert item_keys("Le Marais (3rd and 4th)") == ["Le Marais (3rd and 4th)", "Le Marais"]
    body = (
        "- Jerónimos Monastery in Belém: a masterpiece. [1]\n"
        "- **Museu Nacional do Azulejo** – tiles. [1]\n"
        "- Süleymaniye Mosque – calmer than the Blue Mosque. [1]\n"
        "- Miradouross everywhere. [1]"
    )
    items = [
        "Jerónimos Monastery",
        "National Tile Museum (Museu Nacional do Azulejo)",
        "Blue Mosque",
        "Miradouros",
    ]
    assert items_quoted(quotes(body), items) == items[:2]


def test_no_guide_phrase_in_the_message_language_with_any_name_of_the_place() -> None:
    assert says_no_guide("I don't have a guide for Porto.", "en", ["Porto"], CATALOGUE)
    assert says_no_guide(
        "I don't have a guide for Porto; the Lisbon guide says: ...", "en", ["Porto"], CATALOGUE
    )
    assert says_no_guide("No tengo una guía de Valparaíso.", "es", ["Valparaíso"], CATALOGUE)
    assert says_no_guide(
        "No tengo ninguna guía que responda a eso sobre Cusco. Puedo...", "es", ["Cuzco", "Cusco"], CATALOGUE
    )
    assert not says_no_guide("I don't have a guide for Porto.", "es", ["Porto"], CATALOGUE)
    assert not says_no_guide("I don't have a guide for Lisbon. Porto is lovely.", "en", ["Porto"], CATALOGUE)
    assert not says_no_guide("Here is what the Lisbon guide says about Porto:", "en", ["Porto"], CATALOGUE)


def test_language_is_read_from_the_answers_own_words_not_its_quotes() -> None:
    body = "Esto es lo que dice la guía de Lisboa sobre la comida:\n\nPortuguese food is generous and here is what [1]"
    assert language_of(body, CATALOGUE) == "es"
    assert language_of("Only a quote here [1]", CATALOGUE) is None


def test_score_row_on_a_porto_answer_quoting_lisbon() -> None:
    row = {"lang": "en", "text": "What about Porto?", "kind": "no_guide", "place": "Porto", "near_doc": None}
    lisbon = {
        "n": 1,
        "id": "guides/lisbon",
        "kind": "document",
        "title": "Lisbon City Guide",
        "section": "Sights",
    }
    quoted = (
        "\n\n- Jerónimos Monastery in Belém: a masterpiece of the Manueline style. [1]\n\nSources: [1] Lisbon"
    )
    honest = score_row(
        row, "I don't have a guide for Porto; the Lisbon guide says:" + quoted, [lisbon], {}, CATALOGUE
    )
    assert honest["no_guide_ok"] and honest["clean"]
    vague = score_row(row, "Here is what the guides say about Porto:" + quoted, [lisbon], {}, CATALOGUE)
    assert not vague["says_no_guide"] and vague["misattributed"] == ["guides/lisbon — Sights"]


def test_the_labelled_set_is_whole() -> None:
    path = Path(__file__).parent / "data" / "answers_multilingual.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    guides = {p.stem for p in (Path(__file__).parent.parent / "seed_data" / "guides").glob("*.md")}
    for lang in ("en", "es", "fr", "de", "pt", "it"):
        assert sum(r["lang"] == lang for r in rows) >= 15
    assert [r["order"] for r in rows] == list(range(1, len(rows) + 1))
    for r in rows:
        doc = r.get("doc") or r.get("near_doc")
        assert doc is None or doc.removeprefix("guides/") in guides, r
        assert {"list": "items", "plan": "days", "no_guide": "place"}.get(r["kind"], "doc") in r, r

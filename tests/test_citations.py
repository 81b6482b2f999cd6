"""Source titles: a live result's text is cut to a title at a word boundary with "…", never mid-word."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from connectors.models import Activity
from rag.chat.citations import TITLE_CHARS, document_source, live_source, shorten

LONG = (
    "Flight LHR 2026-11-27 11:05 → LIS 2026-11-27 18:55, 1 stop via AMS, 7h50 "
    "(KLM Royal Dutch Airlines KL990/KL1389). economy, 168.37 EUR total."
)


def test_a_long_text_is_cut_after_its_last_whole_word() -> None:
    title = shorten(LONG)
    assert len(LONG) > TITLE_CHARS >= len(title)
    assert (
        title
        == "Flight LHR 2026-11-27 11:05 → LIS 2026-11-27 18:55, 1 stop via AMS, 7h50 (KLM Royal Dutch Airlines…"
    )


def test_a_short_text_is_kept_whole_and_on_one_line() -> None:
    assert shorten("Lisbon, Portugal on Sat 2026-11-28: rain, 9 to 14 °C.") == (
        "Lisbon, Portugal on Sat 2026-11-28: rain, 9 to 14 °C."
    )
    assert shorten("Hotel\n  Roma\tCentrale") == "Hotel Roma Centrale"
    assert shorten("x" * TITLE_CHARS) == "x" * TITLE_CHARS  # exactly the limit fits


def test_the_cut_never_ends_on_a_dangling_separator() -> None:
    text = "word " * 9 + "Hotel Roma Centrale, — " + "z" * 80
    assert shorten(text, 70) == "word " * 9 + "Hotel Roma Centrale…"


def test_one_word_longer_than_the_limit_is_cut_where_it_must() -> None:
    url = "Tour: https://example.com/" + "a" * 200
    assert shorten(url) == url[: TITLE_CHARS - 1] + "…"


def test_the_ellipsis_follows_a_word_never_punctuation() -> None:
    # What a flight's title looked like: "...KL1389).…", read on the page as "….".
    assert shorten("Hotel Roma Centrale. Breakfast included, free cancellation", 30) == "Hotel Roma Centrale…"
    assert shorten("Flight LHR → LIS (KLM KL990/KL1389). economy, 168.37 EUR total.", 40) == (
        "Flight LHR → LIS (KLM KL990/KL1389…"
    )
    assert shorten("Tour → " + "x" * 10, 12) == "Tour…"
    assert shorten("!!! ??? ... " + "a" * 20, 14) == "!!! ??? ... a…"  # no word to end on before the cut
    assert shorten("... ,,, ;;; !!!!!!!!!!", 12) == "…"


# Letters, spaces and what may not come right before the "…": punctuation and separators.
TITLE_CHARS_SAMPLE = "ab \n,.;:!?)(\"'*—–-…/|→+"


@given(
    st.text(alphabet=st.sampled_from(TITLE_CHARS_SAMPLE), max_size=300),
    st.integers(min_value=2, max_value=120),
)
def test_a_title_fits_and_is_a_whole_word_prefix_of_the_text(text: str, limit: int) -> None:
    flat = " ".join(text.split())
    title = shorten(text, limit)
    assert len(title) <= limit
    if len(flat) <= limit:
        assert title == flat
        return
    kept = title.removesuffix("…")
    assert title.endswith("…") and flat.startswith(kept)
    # Nothing after the "…", and right before it a letter, never punctuation: no "….", "…,", ".…", ",…".
    assert kept == "" or kept[-1] in "ab", title
    if " " in flat[limit // 2 : limit] and any(c in "ab" for c in flat[: limit // 2]):
        assert kept and not flat[len(kept)].isalnum()  # a boundary to cut at: the kept text ends a word


def test_both_kinds_of_live_source_carry_the_cut_title() -> None:
    name = "Evening food walk through Alfama, Mouraria and the old Moorish quarter, with a local guide and tastings"
    activity = Activity(
        provider="opentripmap",
        sandbox=True,
        fetched_at=dt.datetime(2026, 11, 23, tzinfo=dt.UTC),
        activity_id="a1",
        name=name,
        price=45.0,
        currency="EUR",
    )
    fresh = live_source(activity)
    assert (
        fresh["title"]
        == "Evening food walk through Alfama, Mouraria and the old Moorish quarter, with a local guide and…"
    )
    stored = document_source("p1", {"source": "live", "kind": "activity", "text": activity.render()})
    assert stored["title"] == fresh["title"]
    guide = document_source("p2", {"title": "Lisbon City Guide " * 10, "heading": "Overview"})
    assert guide["title"] == "Lisbon City Guide " * 10  # a guide's own title is not cut

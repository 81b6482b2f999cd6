"""The deterministic extractor: dates against a fixed today, places with roles, travellers, budgets. Pure."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.places import LocationCatalogue
from rag.routing.dates import find_dates
from rag.routing.extract import extract
from rag.routing.months import find_months

TODAY = dt.date(2026, 11, 21)  # a Saturday
CAT = LocationCatalogue.load()
MONTH_NAMES = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
future = st.dates(min_value=TODAY, max_value=TODAY + dt.timedelta(days=360))


@given(future)
@settings(max_examples=200)
def test_written_dates_round_trip(day: dt.date) -> None:
    month = MONTH_NAMES[day.month - 1]
    forms = [
        day.isoformat(),
        f"{month} {day.day}, {day.year}",
        f"{day.day} {month} {day.year}",
        f"{day.month}/{day.day}/{day.year}",
        f"on {month[:3]} {day.day}th {day.year}",
    ]
    for text in forms:
        found = find_dates(f"fly on {text} please", TODAY)
        assert [d.first for d in found] == [day], text


@given(future)
@settings(max_examples=100)
def test_dates_without_a_year_are_the_next_one(day: dt.date) -> None:
    found = find_dates(f"{MONTH_NAMES[day.month - 1]} {day.day}", TODAY)
    assert found[0].first == day or (day.month, day.day) == (2, 29)


@given(st.integers(min_value=1, max_value=60))
def test_in_n_days(n: int) -> None:
    assert find_dates(f"in {n} days", TODAY)[0].first == TODAY + dt.timedelta(days=n)


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("tomorrow", "2026-11-22", None),
        ("day after tomorrow", "2026-11-23", None),
        ("next friday", "2026-11-27", None),
        ("this weekend", "2026-11-21", "2026-11-23"),
        ("next week", "2026-11-23", None),
        ("March 3", "2027-03-03", None),
        ("12/08", "2026-12-08", None),
        ("from July 10 for 3 nights", "2027-07-10", None),
        ("July 10-15", "2027-07-10", "2027-07-15"),
        ("from july 10 to july 15", "2027-07-10", "2027-07-15"),
        ("between 2 may and 6 may", "2027-05-02", "2027-05-06"),
        ("on the 3rd", "2026-12-03", None),
    ],
)
def test_date_phrases(text: str, first: str, last: str | None) -> None:
    d = find_dates(text, TODAY)[0]
    assert d.first.isoformat() == first and (d.last.isoformat() if d.last else None) == last


def test_day_first_order_and_words_that_are_not_dates() -> None:
    assert find_dates("12/08", TODAY, "DMY")[0].first == dt.date(2027, 8, 12)
    assert find_dates("I may go to the sun and sea", TODAY) == []
    assert find_dates("31/02", TODAY, "DMY") == []  # no such day


@given(st.sampled_from(CAT.cities), st.sampled_from(CAT.cities))
@settings(max_examples=100, deadline=None)  # the first extract() loads the place index (about a second)
def test_from_a_to_b_roles(a, b) -> None:  # type: ignore[no-untyped-def]
    if a.city_code == b.city_code:
        return
    for text in (
        f"flights from {a.name} to {b.name}",
        f"to {b.name} from {a.name}",
        f"{a.city_code} {b.city_code}",
    ):
        slots = extract(text, CAT, TODAY)
        assert slots.origin and slots.origin.place.city_code == a.city_code, text
        assert slots.destination and slots.destination.place.city_code == b.city_code, text


def test_slots_of_a_rich_message() -> None:
    s = extract(
        "we are 2 adults and 1 kid flying business, nonstop, NYC to Paris on June 2, under $1,500", CAT, TODAY
    )
    assert (s.origin.place.code, s.destination.place.code) == ("NYC", "PAR")  # type: ignore[union-attr]
    assert s.start_date == dt.date(2027, 6, 2)
    assert (s.adults, s.children, s.cabin, s.nonstop) == (2, 1, "BUSINESS", True)
    assert (s.max_price, s.currency) == (1500, "USD")


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("hotel in barcelonna", ["BCN"]),  # misspelt
        ("a nice hotel in Rome", ["ROM"]),  # "nice" is not Nice here
        ("three nights in Nice", ["NCE"]),
        ("hanoi's old quarter", ["HAN"]),
        ("budget 2000 NOK from Oslo", ["OSL"]),  # NOK is money, not an airport
        ("the sun and the sea", []),
    ],
)
def test_places(text: str, codes: list[str]) -> None:
    assert [p.place.code for p in extract(text, CAT, TODAY).places] == codes


def test_nights_and_budget_forms() -> None:
    assert extract("a room for 3 nights", CAT, TODAY).nights == 3
    assert extract("a hotel for a week", CAT, TODAY).nights == 7
    s = extract("max 300 euros", CAT, TODAY)
    assert (s.max_price, s.currency) == (300, "EUR")
    assert extract("for 3 nights", CAT, TODAY).max_price is None


# --- dates in other languages (rewritten in English, then read by the same rules) ---------------------

MONTHS_IN = {
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "de": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
}
DAY_MONTH_FORMS = {
    "es": ["el {d} de {m}", "el {d} de {m} de {y}"],
    "fr": ["le {d} {m}", "le {d} {m} {y}"],
    "de": ["am {d}. {m}", "am {d}. {m} {y}"],
    "pt": ["dia {d} de {m}", "{d} de {m} de {y}"],
    "it": ["il {d} {m}", "il {d} {m} {y}"],
}


@given(future, st.sampled_from(sorted(DAY_MONTH_FORMS)))
@settings(max_examples=200)
def test_other_languages_written_dates_round_trip(day: dt.date, lang: str) -> None:
    month = MONTHS_IN[lang].split()[day.month - 1]
    for form in DAY_MONTH_FORMS[lang]:
        text = "Hotel " + form.format(d=day.day, m=month, y=day.year) + " bitte"
        found = find_dates(text, TODAY, lang=lang)
        assert [d.first for d in found] == [day], text
        assert month in text[found[0].start : found[0].end]  # the span is the original text's


@pytest.mark.parametrize(
    ("lang", "text", "first", "last", "span"),
    [
        ("es", "Hotel en Lisboa del 12 al 15 de mayo", "2027-05-12", "2027-05-15", "12 al 15 de mayo"),
        ("es", "del 30 de mayo al 2 de junio", "2027-05-30", "2027-06-02", "30 de mayo al 2 de junio"),
        ("es", "mañana", "2026-11-22", None, "mañana"),
        ("es", "pasado mañana por la mañana", "2026-11-23", None, "pasado mañana"),
        ("es", "el próximo viernes", "2026-11-27", None, "el próximo viernes"),
        ("es", "el viernes que viene", "2026-11-27", None, "el viernes que viene"),
        ("es", "este fin de semana", "2026-11-21", "2026-11-23", "este fin de semana"),
        ("es", "en dos semanas", "2026-12-05", None, "en dos semanas"),
        ("es", "hotel 12/05", "2027-05-12", None, "12/05"),  # day first
        ("fr", "vols de Paris à Rome le 4 avril", "2027-04-04", None, "4 avril"),
        ("fr", "du 1er au 3 mars", "2027-03-01", "2027-03-03", "1er au 3 mars"),
        ("fr", "demain", "2026-11-22", None, "demain"),
        ("fr", "après-demain", "2026-11-23", None, "après-demain"),
        ("fr", "la semaine prochaine", "2026-11-23", None, "la semaine prochaine"),
        ("fr", "vendredi prochain", "2026-11-27", None, "vendredi prochain"),
        ("fr", "le week-end prochain", "2026-11-28", "2026-11-30", "le week-end prochain"),
        ("de", "am 5. Mai", "2027-05-05", None, "5. Mai"),
        ("de", "vom 3. bis 6. Juni", "2027-06-03", "2027-06-06", "3. bis 6. Juni"),
        ("de", "Hotel vom 30.12. bis 2.1.", "2026-12-30", "2027-01-02", "30.12. bis 2.1."),
        ("de", "Wetter morgen in Köln", "2026-11-22", None, "morgen"),
        ("de", "übermorgen", "2026-11-23", None, "übermorgen"),
        ("de", "nächsten Freitag", "2026-11-27", None, "nächsten Freitag"),
        ("de", "nächstes Wochenende", "2026-11-28", "2026-11-30", "nächstes Wochenende"),
        ("de", "in zwei Tagen", "2026-11-23", None, "in zwei Tagen"),
        ("pt", "voos de Lisboa para Madrid amanhã", "2026-11-22", None, "amanhã"),
        ("pt", "depois de amanhã", "2026-11-23", None, "depois de amanhã"),
        ("pt", "de 3 a 6 de junho", "2027-06-03", "2027-06-06", "3 a 6 de junho"),
        ("pt", "na próxima sexta-feira", "2026-11-27", None, "na próxima sexta-feira"),
        ("pt", "no próximo fim de semana", "2026-11-28", "2026-11-30", "no próximo fim de semana"),
        ("it", "meteo a Firenze domani", "2026-11-22", None, "domani"),
        ("it", "dal 3 al 6 giugno", "2027-06-03", "2027-06-06", "3 al 6 giugno"),
        ("it", "venerdì prossimo", "2026-11-27", None, "venerdì prossimo"),
        ("it", "venerdi prossimo", "2026-11-27", None, "venerdi prossimo"),  # typed without the accent
        ("it", "questo fine settimana", "2026-11-21", "2026-11-23", "questo fine settimana"),
        ("es", "next weekend", "2026-11-28", "2026-11-30", "next weekend"),  # English words still read
    ],
)
def test_other_languages_date_phrases(lang: str, text: str, first: str, last: str | None, span: str) -> None:
    found = find_dates(text, TODAY, lang=lang)
    assert len(found) == 1, found
    d = found[0]
    assert (d.first.isoformat(), d.last.isoformat() if d.last else None) == (first, last)
    assert text[d.start : d.end] == span


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("es", "31 de febrero"),  # no such day
        ("fr", "le 30 février"),
        ("de", "am 31. April"),
        ("es", "el 12 de mayo de 2020"),  # past
        ("pt", "dia 3 de junho de 2025"),
        ("it", "il 5 maggio 2024"),
        ("es", "¿Qué puedo hacer en Lisboa con niños?"),
        ("fr", "Que voir à Rome en deux jours ?"),  # a length of stay, not a date
        ("de", "Guten Morgen, was kann man in Köln machen?"),  # morning, not tomorrow
        ("es", "hotel en Santo Domingo"),  # a city, not Sunday
        ("pt", "bilhete em segunda classe"),  # second class, not Monday
    ],
)
def test_other_languages_impossible_past_or_no_dates_give_none(lang: str, text: str) -> None:
    assert find_dates(text, TODAY, lang=lang) == []


def test_the_english_parser_ignores_other_languages_words() -> None:
    assert find_dates("mañana", TODAY) == [] and find_dates("demain", TODAY, lang="en") == []
    assert find_dates("morgen", TODAY, lang="xx") == []  # a language we do not speak: English rules


# --- months without a day ("in April"), and days that have passed -------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "first", "span"),
    [
        ("en", "I'm going to Tokyo in April", "2027-04-01", "in April"),
        ("en", "Tokyo next April", "2027-04-01", "next April"),
        ("en", "Tokyo, April 2027", "2027-04-01", "April 2027"),
        ("en", "a week in Lisbon in early May", "2027-05-01", "in early May"),
        ("en", "weather in Tokyo in November", "2026-11-01", "in November"),  # this month counts
        ("en", "Tokyo next November", "2027-11-01", "next November"),  # said in November: a year away
        ("en", "Lisbon in April 2031", "2031-04-01", "in April 2031"),
        ("en", "Rome in March 2025", "2025-03-01", "in March 2025"),  # past: kept, to be refused
        ("es", "Voy a Tokio en abril", "2027-04-01", "en abril"),
        ("es", "Madrid el próximo noviembre", "2027-11-01", "el próximo noviembre"),
        ("es", "Sevilla en abril de 2027", "2027-04-01", "en abril de 2027"),
        ("fr", "Je pars à Paris en avril", "2027-04-01", "en avril"),
        ("fr", "Nice en avril prochain", "2027-04-01", "en avril prochain"),
        ("fr", "Lyon au mois d'août", "2027-08-01", "au mois d'août"),
        ("de", "Ich fliege im April nach Berlin", "2027-04-01", "im April"),
        ("de", "Hamburg Anfang Mai", "2027-05-01", "Anfang Mai"),
        ("pt", "Vou a Lisboa em abril", "2027-04-01", "em abril"),
        ("pt", "Porto em março de 2027", "2027-03-01", "em março de 2027"),
        ("it", "Vado a Roma ad aprile", "2027-04-01", "ad aprile"),
        ("it", "Firenze a maggio", "2027-05-01", "a maggio"),
    ],
)
def test_month_mentions(lang: str, text: str, first: str, span: str) -> None:
    [m] = find_months(text, TODAY)
    assert (m.first.isoformat(), text[m.start : m.end]) == (first, span)
    s = extract(text, CAT, TODAY, lang=lang)
    assert s.month == m.first and s.start_date is None  # a month is not a start date


@given(st.integers(min_value=1, max_value=12), st.sampled_from(["en", *sorted(MONTHS_IN)]))
def test_a_month_is_the_next_such_month(month: int, lang: str) -> None:
    name = MONTH_NAMES[month - 1] if lang == "en" else MONTHS_IN[lang].split()[month - 1]
    cue = {"en": "in", "es": "en", "fr": "en", "de": "im", "pt": "em", "it": "a"}[lang]
    [m] = find_months(f"Lisboa {cue} {name}", TODAY)
    assert m.first.month == month and m.first.day == 1
    assert TODAY.replace(day=1) <= m.first < TODAY.replace(day=1, year=TODAY.year + 1)


@pytest.mark.parametrize(
    "text",
    [
        "I may go to Tokyo",
        "it may rain in Lisbon",
        "May I book a hotel in Rome?",
        "this may help",
        "you may want a hotel",
        "flights on April 10",  # a date, not a month
        "my friend April and I",  # a name
        "weather on Mars",
        "a hotel by the sea (a mar)",
    ],
)
def test_words_that_are_not_months(text: str) -> None:
    assert extract(text, CAT, TODAY).month is None


def test_a_month_is_no_place() -> None:
    # March (Cambridgeshire) and the month: "in March" after a city is the month.
    assert [p.place.code for p in extract("weather in Paris in March", CAT, TODAY).places] == ["PAR"]


@pytest.mark.parametrize(
    ("lang", "text", "first"),
    [
        ("en", "weather in Rome yesterday", "2026-11-20"),
        ("en", "weather in Rome last week", "2026-11-09"),
        ("en", "what was it like last friday", "2026-11-20"),
        ("en", "three days ago", "2026-11-18"),
        ("en", "weather in Rome on 2025-03-01", "2025-03-01"),
        ("es", "tiempo en Roma la semana pasada", "2026-11-09"),
        ("fr", "la météo d'hier à Paris", "2026-11-20"),
        ("de", "Wetter in Berlin letzte Woche", "2026-11-09"),
        ("pt", "o tempo em Lisboa ontem", "2026-11-20"),
        ("it", "meteo a Roma la settimana scorsa", "2026-11-09"),
    ],
)
def test_days_that_have_passed_are_read_apart(lang: str, text: str, first: str) -> None:
    s = extract(text, CAT, TODAY, lang=lang)
    assert [d.first.isoformat() for d in s.past_dates] == [first]
    # English keeps a lone past day as its date (the plan refuses it); other languages never send one.
    assert [d.first.isoformat() for d in s.dates] == ([first] if lang == "en" else [])


def test_a_coming_day_wins_over_a_past_one() -> None:
    s = extract("we landed yesterday; weather in Rome tomorrow?", CAT, TODAY)
    assert s.start_date == dt.date(2026, 11, 22) and [d.first for d in s.past_dates] == [
        dt.date(2026, 11, 20)
    ]
    assert all(d.first >= TODAY for d in find_dates("the last weekend of May", TODAY))  # not a past weekend

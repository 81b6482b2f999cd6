"""The deterministic extractor: dates against a fixed today, places with roles, travellers, budgets. Pure."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from babel.dates import get_day_names, get_month_names
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.places import LocationCatalogue
from connectors.text import fold
from rag.i18n.calendar_words import LANGUAGES, month_name, month_names, month_pattern, weekday_names
from rag.routing.dates import find_dates
from rag.routing.extract import extract
from rag.routing.months import find_months
from rag.routing.shifts import find_shift

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


# --- ranges as travellers say them -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "first", "last"),
    [
        ("en", "March 1st through the 5th", "2027-03-01", "2027-03-05"),
        ("en", "Find me a flat in Berlin from the 2nd until the 7th of June.", "2027-06-02", "2027-06-07"),
        ("en", "a riad from the 3rd to the 8th of June", "2027-06-03", "2027-06-08"),
        ("en", "Hotel from the 18th to the 22nd of September.", "2027-09-18", "2027-09-22"),
        ("en", "July 8 to July 11.", "2027-07-08", "2027-07-11"),
        ("en", "Flights from Brisbane to Sydney on 14 May, returning 17 May.", "2027-05-14", "2027-05-17"),
        ("en", "Sept 3 thru the 7th", "2027-09-03", "2027-09-07"),
        ("en", "Dec 28 through Jan 3", "2026-12-28", "2027-01-03"),  # over the new year
        ("en", "a cabin from the 30th to June 2", "2027-05-30", "2027-06-02"),
        ("es", "Un hotel del 2 al 7 de junio", "2027-06-02", "2027-06-07"),
        ("es", "Un hotel en Cancún del 12 al 17 de abril.", "2027-04-12", "2027-04-17"),
        ("es", "entre el 3 y el 6 de mayo", "2027-05-03", "2027-05-06"),
        ("fr", "Un hôtel à Amsterdam du 14 au 16 mai.", "2027-05-14", "2027-05-16"),
        ("fr", "du 30 mai au 2 juin", "2027-05-30", "2027-06-02"),
        ("de", "vom 3. bis 6. Juni", "2027-06-03", "2027-06-06"),
        ("de", "Ferienwohnung vom 30. Mai bis 2. Juni", "2027-05-30", "2027-06-02"),
        ("it", "Cerca un hotel a Parigi dal 10 al 14 luglio.", "2027-07-10", "2027-07-14"),
        ("it", "Un appartamento a Londra dal 5 al 9 giugno.", "2027-06-05", "2027-06-09"),
        ("pt", "De 4 a 9 de outubro.", "2027-10-04", "2027-10-09"),
        ("pt", "entre 3 e 6 de maio", "2027-05-03", "2027-05-06"),
    ],
)
def test_ranges_as_travellers_say_them(lang: str, text: str, first: str, last: str) -> None:
    s = extract(text, CAT, TODAY, lang=lang)
    assert (str(s.start_date), str(s.end_date)) == (first, last)


def test_a_range_whose_first_day_has_passed_is_next_years_whole() -> None:
    # Said on 21 November: the 20th has passed, so it is next year's range, not its last days alone.
    [d] = find_dates("del 20 al 25 de noviembre", TODAY, lang="es")
    assert (d.first, d.last) == (dt.date(2027, 11, 20), dt.date(2027, 11, 25))
    [d] = find_dates("November 20-25", TODAY)
    assert (d.first, d.last) == (dt.date(2027, 11, 20), dt.date(2027, 11, 25))


ENGLISH_RANGE_FORMS = [
    "from the {a} to the {b} of {m}",
    "from {m} {a} to the {b}",
    "{m} {a}-{b}",
    "{a} to {b} {m}",
]
OTHER_RANGE_FORMS = {
    "es": "del {a} al {b} de {m}",
    "fr": "du {a} au {b} {m}",
    "de": "vom {a}. bis {b}. {m}",
    "it": "dal {a} al {b} {m}",
    "pt": "de {a} a {b} de {m}",
}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@given(
    st.integers(1, 12), st.integers(1, 28), st.integers(1, 27), st.sampled_from(["en", *OTHER_RANGE_FORMS])
)
@settings(max_examples=200)
def test_a_range_ends_after_it_starts(month: int, a: int, length: int, lang: str) -> None:
    b = min(a + length, 28)
    if b == a:
        return
    if lang == "en":
        forms = [
            f.format(a=_ordinal(a), b=_ordinal(b), m=MONTH_NAMES[month - 1]) for f in ENGLISH_RANGE_FORMS
        ]
    else:
        forms = [OTHER_RANGE_FORMS[lang].format(a=a, b=b, m=MONTHS_IN[lang].split()[month - 1])]
    for text in forms:
        [d] = find_dates(f"hotel {text} please", TODAY, lang=lang)
        assert d.last is not None and d.last > d.first >= TODAY, text
        assert (d.first.month, d.first.day, d.last.day) == (month, a, b), text


# --- stay lengths -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "nights"),
    [
        ("en", "Look for a hotel from 10 June for a week, one family room.", 7),
        ("en", "a week in Lisbon", 7),
        ("en", "a fortnight in Crete", 14),
        ("en", "two weeks in Japan", 14),
        ("en", "7 days total", 7),
        ("en", "staying 4 nights", 4),
        ("en", "for 5 nights", 5),
        ("en", "I'll need a hotel in Zanzibar, arriving on the 20th and staying 5 nights.", 5),
        ("en", "Then I need a room in Manhattan, 3 nights from May 17.", 3),
        ("de", "Ein Hotel in Tokio ab dem 8. Mai für eine Woche.", 7),
        ("de", "zwei Wochen in Italien", 14),
        ("de", "5 Nächte", 5),
        ("es", "una semana en Sevilla", 7),
        ("es", "dos semanas", 14),
        ("es", "10 días en total", 10),
        ("fr", "pendant une semaine", 7),
        ("fr", "une quinzaine à Nice", 14),
        ("fr", "Il me faut aussi un hôtel au Caire, 5 nuits à partir du 17.", 5),
        ("it", "per una settimana", 7),
        ("it", "3 notti", 3),
        ("pt", "por uma semana", 7),
        ("pt", "5 noites", 5),
    ],
)
def test_stay_lengths(lang: str, text: str, nights: int) -> None:
    assert extract(text, CAT, TODAY, lang=lang).nights == nights


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "weather in a week"),  # a date
        ("en", "Return a week later."),  # a shift
        ("en", "Add one more night."),
        ("en", "we go there once a week"),
        ("en", "a week-end in Paris"),
        ("es", "en una semana"),
        ("es", "Con vuelta una semana después."),
        ("es", "una noche más"),
        ("fr", "une nuit de plus"),
        ("de", "eine Nacht mehr"),
        ("it", "una notte in più"),
        ("pt", "mais uma noite"),
    ],
)
def test_dates_and_shifts_are_no_stay(lang: str, text: str) -> None:
    assert extract(text, CAT, TODAY, lang=lang).nights is None


# --- returns and ends ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "anchor", "start", "end"),
    [
        ("en", "London on April 9, coming back on the 13th?", None, "2027-04-09", "2027-04-13"),
        ("en", "Back on the 19th.", "2027-08-12", None, "2027-08-19"),
        ("en", "Can we come home on the 13th instead?", "2027-03-06", None, "2027-03-13"),
        ("en", "Return on the 17th.", "2027-05-14", None, "2027-05-17"),
        ("en", "returning 17 May", None, None, "2027-05-17"),
        ("en", "I can only stay until the 7th", "2027-06-02", None, "2027-06-07"),
        ("en", "check-out the 23rd", "2027-09-18", None, "2027-09-23"),
        ("en", "Make the check-out the 23rd.", "2027-09-18", None, "2027-09-23"),
        ("en", "flying home on March 12", None, None, "2027-03-12"),
        ("es", "Busca vuelos el 12 de abril, con regreso el 16.", None, "2027-04-12", "2027-04-16"),
        ("es", "Vuelta el 11 de mayo.", None, None, "2027-05-11"),
        ("es", "vuelvo el 20", "2027-05-14", None, "2027-05-20"),
        ("fr", "retour le 9 avril", None, None, "2027-04-09"),
        ("fr", "Décale le retour au 10.", "2027-04-02", None, "2027-04-10"),
        ("fr", "on rentre le 12 mai", None, None, "2027-05-12"),
        ("de", "Rückflug am 28. April.", None, None, "2027-04-28"),
        ("de", "Flüge am 24. April, zurück am 28.", None, "2027-04-24", "2027-04-28"),
        ("it", "Ritorno il 9 giugno.", None, None, "2027-06-09"),
        ("it", "torniamo il 12", "2027-06-05", None, "2027-06-12"),
        ("pt", "Volta em 20 de setembro.", None, None, "2027-09-20"),
        ("pt", "Na verdade, só até dia 8.", "2027-10-04", None, "2027-10-08"),
        ("pt", "volto dia 9", "2027-10-04", None, "2027-10-09"),
    ],
)
def test_returns_and_ends_are_end_marked(
    lang: str, text: str, anchor: str | None, start: str | None, end: str
) -> None:
    s = extract(text, CAT, TODAY, lang=lang, anchor=dt.date.fromisoformat(anchor) if anchor else None)
    assert s.end_marked and str(s.end_date) == end
    assert (str(s.start_date) if s.start_date else None) == start


# --- bare days -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "anchor", "day", "span"),
    [
        ("en", "the 22nd", "2027-05-20", "2027-05-22", "the 22nd"),
        ("en", "Make it the 22nd.", "2027-05-20", "2027-05-22", "the 22nd"),
        ("en", "make it 22nd", "2027-05-20", "2027-05-22", "22nd"),
        ("en", "oops, the 24th", "2027-05-20", "2027-05-24", "the 24th"),
        ("en", "Hmm, the 9th works better.", "2027-09-08", "2027-09-09", "the 9th"),
        ("en", "Change the departure to the 4th.", "2027-03-03", "2027-03-04", "the 4th"),
        ("en", "the 2nd", "2027-05-30", "2027-06-02", "the 2nd"),  # over a month's end
        ("en", "the 30th", "2027-06-02", "2027-05-30", "the 30th"),  # back over it
        ("en", "the 31st", "2027-02-15", "2027-01-31", "the 31st"),  # February has none
        ("en", "the 1st", "2027-02-15", "2027-03-01", "the 1st"),  # 14 days either way: the later
        ("fr", "Plutôt le 17.", "2027-03-15", "2027-03-17", "le 17"),
        ("fr", "au 10", "2027-04-09", "2027-04-10", "10"),
        ("de", "Lieber am 8.", "2027-05-06", "2027-05-08", "am 8."),
        ("de", "bis zum 12.", "2027-05-06", "2027-05-12", "12."),
        ("es", "mejor el día 18", "2027-05-20", "2027-05-18", "el día 18"),
        ("es", "el 16", "2027-04-12", "2027-04-16", "el 16"),
        ("it", "meglio il 23", "2027-05-20", "2027-05-23", "il 23"),
        ("it", "facciamo l'8", "2027-06-05", "2027-06-08", "l'8"),
        ("pt", "no dia 8", "2027-10-04", "2027-10-08", "no dia 8"),
    ],
)
def test_bare_days_are_anchored_to_the_trip(lang: str, text: str, anchor: str, day: str, span: str) -> None:
    [d] = find_dates(text, TODAY, lang=lang, anchor=dt.date.fromisoformat(anchor))
    assert (str(d.first), d.last, d.bare, d.rolled) == (day, None, True, False)
    assert text[d.start : d.end] == span


@pytest.mark.parametrize(
    ("lang", "text", "anchor", "first", "last"),
    [
        ("pt", "melhor de 9 a 12", "2027-10-04", "2027-10-09", "2027-10-12"),
        ("en", "from the 18th to the 22nd", "2027-09-20", "2027-09-18", "2027-09-22"),
        ("en", "Somewhere from the 20th to the 23rd, please.", "2027-05-20", "2027-05-20", "2027-05-23"),
        ("en", "the 28th to the 2nd", "2027-05-27", "2027-05-28", "2027-06-02"),
        ("es", "mejor del 2 al 7", "2027-06-01", "2027-06-02", "2027-06-07"),
        ("fr", "plutôt du 14 au 16", "2027-05-10", "2027-05-14", "2027-05-16"),
        ("de", "lieber vom 3. bis 6.", "2027-06-01", "2027-06-03", "2027-06-06"),
        ("it", "meglio dal 10 al 14", "2027-07-08", "2027-07-10", "2027-07-14"),
    ],
)
def test_bare_day_ranges_are_anchored(lang: str, text: str, anchor: str, first: str, last: str) -> None:
    [d] = find_dates(text, TODAY, lang=lang, anchor=dt.date.fromisoformat(anchor))
    assert (str(d.first), str(d.last), d.bare) == (first, last, True)


@pytest.mark.parametrize(
    ("lang", "text", "first", "then"),
    [
        ("en", "on April 9, coming back on the 13th", "2027-04-09", "2027-04-13"),
        ("en", "March 28, back on the 2nd", "2027-03-28", "2027-04-02"),  # the end after the start
        ("es", "el 12 de abril, con regreso el 16", "2027-04-12", "2027-04-16"),
        ("fr", "le 15 mars, retour le 17", "2027-03-15", "2027-03-17"),
        ("de", "am 24. April, Rückflug am 28.", "2027-04-24", "2027-04-28"),
        ("it", "il 5 giugno, ritorno il 9", "2027-06-05", "2027-06-09"),
        ("pt", "dia 12 de setembro, volta dia 20", "2027-09-12", "2027-09-20"),
    ],
)
def test_a_bare_day_after_a_date_takes_its_month(lang: str, text: str, first: str, then: str) -> None:
    # The message's own date wins over the anchor, which is in another month here.
    for anchor in (None, dt.date(2027, 8, 1)):
        found = find_dates(text, TODAY, lang=lang, anchor=anchor)
        assert [(str(d.first), d.bare) for d in found] == [(first, False), (then, True)]


def test_a_bare_day_without_an_anchor_is_the_next_one() -> None:
    # Said on Saturday 21 November: the 25th is this month's; the 5th has passed, so it is December's.
    [d] = find_dates("the 25th", TODAY)
    assert (d.first, d.bare, d.rolled) == (dt.date(2026, 11, 25), True, False)
    [d] = find_dates("Plutôt le 5", TODAY, lang="fr")
    assert (d.first, d.bare, d.rolled) == (dt.date(2026, 12, 5), True, True)
    assert not find_dates("March 3", TODAY)[0].bare


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "the 2nd floor"),
        ("en", "the 3rd one looks good"),
        ("es", "a las 3, el 2 de la lista"),
        ("es", "el 16 %"),
        ("fr", "le 17e arrondissement"),
        ("fr", "le 3 personnes"),
        ("de", "am 8 Uhr"),
        ("it", "il 23 euro"),
        ("pt", "de 2 a 3 pessoas"),
        ("pt", "de 9 a 12 horas"),
    ],
)
def test_numbers_that_are_no_bare_day(lang: str, text: str) -> None:
    assert find_dates(text, TODAY, lang=lang, anchor=dt.date(2027, 5, 20)) == []


BARE_FORMS = {
    "en": "make it the {o}",
    "es": "mejor el {d}",
    "fr": "plutôt le {d}",
    "de": "lieber am {d}.",
    "it": "meglio il {d}",
    "pt": "no dia {d}",
}


@given(
    st.dates(min_value=dt.date(2026, 1, 1), max_value=dt.date(2030, 12, 31)),
    st.integers(1, 31),
    st.sampled_from(sorted(BARE_FORMS)),
)
@settings(max_examples=300)
def test_an_anchored_bare_day_is_the_nearest_such_day(anchor: dt.date, day: int, lang: str) -> None:
    text = BARE_FORMS[lang].format(d=day, o=_ordinal(day))
    [d] = find_dates(text, TODAY, lang=lang, anchor=anchor, keep_past=True)
    assert d.bare and d.first.day == day
    if (
        anchor >= TODAY
        and d.first >= TODAY
        and any(
            o < TODAY for o in _around(anchor, day) if abs((o - anchor).days) < abs((d.first - anchor).days)
        )
    ):
        return  # a nearer such day has passed: the trip's is the next one from today
    assert abs((d.first - anchor).days) <= 31
    for months in (-1, 0, 1):  # no such day of the months around the anchor is nearer
        index = anchor.year * 12 + anchor.month - 1 + months
        try:
            other = dt.date(index // 12, index % 12 + 1, day)
        except ValueError:
            continue
        assert abs((d.first - anchor).days) <= abs((other - anchor).days)


def _around(anchor: dt.date, day: int) -> list[dt.date]:
    """The dates with this day of the month in the anchor's month and the months around it."""
    out = []
    for months in (-1, 0, 1):
        index = anchor.year * 12 + anchor.month - 1 + months
        try:
            out.append(dt.date(index // 12, index % 12 + 1, day))
        except ValueError:
            continue
    return out


def test_a_trip_ahead_takes_the_next_such_day_when_the_nearest_has_passed() -> None:
    [d] = find_dates("make it the 7th", TODAY, anchor=TODAY, keep_past=True)
    assert d.first == dt.date(2026, 12, 7)  # the 7th of November has passed


@given(st.dates(min_value=TODAY, max_value=dt.date(2030, 12, 31)), st.integers(1, 31), st.integers(1, 31))
@settings(max_examples=200)
def test_an_anchored_bare_range_ends_after_it_starts(anchor: dt.date, a: int, b: int) -> None:
    found = find_dates(f"from the {_ordinal(a)} to the {_ordinal(b)}", TODAY, anchor=anchor)
    assert found and all(d.bare for d in found)
    if len(found) == 1:
        assert found[0].last is not None and found[0].last > found[0].first
        assert (found[0].last - found[0].first).days <= 62


# --- date shifts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "days", "target"),
    [
        ("en", "Push the return back a day.", 1, "end"),
        ("en", "Push the return back two days.", 2, "end"),
        ("en", "Can I come back a day later instead?", 1, "end"),
        ("en", "Return a week later.", 7, "end"),
        ("en", "back a week later", 7, "end"),
        ("en", "Actually, two days later.", 2, "both"),
        ("en", "the day after instead", 1, "both"),
        ("en", "a day earlier", -1, "both"),
        ("en", "leave a day earlier", -1, "start"),
        ("en", "Push it back two days", 2, "both"),
        ("en", "bring the departure forward a day", -1, "start"),
        ("en", "Move the check-out by 3 days", 3, "end"),
        ("en", "Add one more night.", 1, "nights"),
        ("en", "one night more", 1, "nights"),
        ("en", "Can we stay 2 extra nights?", 2, "nights"),
        ("en", "another night please", 1, "nights"),
        ("en", "one night less", -1, "nights"),
        ("es", "Con vuelta una semana después.", 7, "end"),
        ("es", "Mejor regreso un día después.", 1, "end"),
        ("es", "Adelanta la ida un día", -1, "start"),
        ("es", "¿y el día siguiente?", 1, "both"),
        ("es", "dos días antes", -2, "both"),
        ("es", "una noche más", 1, "nights"),
        ("es", "una noche menos", -1, "nights"),
        ("fr", "Décale le retour d'un jour", 1, "end"),
        ("fr", "Je veux partir deux jours plus tôt", -2, "start"),
        ("fr", "et la veille ?", -1, "both"),
        ("fr", "une nuit de plus", 1, "nights"),
        ("de", "Verschieb den Rückflug um einen Tag nach hinten.", 1, "end"),
        ("de", "Den Hinflug einen Tag früher, bitte", -1, "start"),
        ("de", "einen Tag später", 1, "both"),
        ("de", "eine Nacht mehr", 1, "nights"),
        ("it", "Ritorno una settimana dopo", 7, "end"),
        ("it", "Sposta il ritorno di due giorni", 2, "end"),
        ("it", "il giorno prima", -1, "both"),
        ("it", "una notte in più", 1, "nights"),
        ("pt", "Volta uma semana depois", 7, "end"),
        ("pt", "Adia a volta em um dia", 1, "end"),
        ("pt", "o dia seguinte", 1, "both"),
        ("pt", "mais uma noite", 1, "nights"),
        ("pt", "menos uma noite", -1, "nights"),
    ],
)
def test_date_shifts_with_their_target(lang: str, text: str, days: int, target: str) -> None:
    shift = find_shift(text, lang)
    assert shift is not None and (shift.days, shift.target) == (days, target)
    assert text[shift.start : shift.end].strip()  # the words saying it
    slots = extract(text, CAT, TODAY, lang=lang)
    assert slots.shift == shift and slots.nights is None


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "the day after tomorrow"),  # a date
        ("en", "I move to Berlin in 2 days"),
        ("en", "a hotel for 5 nights"),
        ("en", "in a week"),
        ("en", "3 nights from May 17"),
        ("fr", "Décale le retour au 10."),  # a new day, not a shift
        ("pt", "por volta de 2 dias"),
    ],
)
def test_no_shift(lang: str, text: str) -> None:
    assert find_shift(text, lang) is None


# --- month and weekday names from CLDR, and the one accent folding -------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_month_and_weekday_names_are_cldrs(lang: str) -> None:
    months = month_names(lang)
    for number, name in get_month_names("wide", "format", lang).items():
        assert months[name.lower()] == number and months[fold(name)] == number
    for number, name in get_month_names("abbreviated", "format", lang).items():
        assert months[name.lower().rstrip(".")] == number
    weekdays = weekday_names(lang)
    for number, name in get_day_names("wide", "format", lang).items():
        assert weekdays[name.lower()] == number and weekdays[fold(name)] == number
    assert month_name(4, lang) == get_month_names("wide", "format", lang)[4]


def test_regional_names_and_variants() -> None:
    assert month_names("es")["setiembre"] == 9 and month_names("de")["jänner"] == 1
    assert month_names("en")["sept"] == 9 and weekday_names("pt")["segunda"] == 0
    assert "mar" not in weekday_names("es")  # an abbreviation that is another word: only on request
    assert "mar" not in month_names("it", abbreviated=False)


@given(st.integers(1, 12), st.sampled_from(LANGUAGES))
def test_month_pattern_reads_every_month_name(month: int, lang: str) -> None:
    pattern = re.compile(rf"\b(?:{month_pattern()})\.?(?!\w)", re.IGNORECASE)
    for width in ("wide", "abbreviated"):
        name = get_month_names(width, "stand-alone", lang)[month].rstrip(".")
        for text in (name, fold(name), name.upper()):
            m = pattern.search(f"a trip in {text} please")
            assert m and m.group(0).rstrip(".").lower() in (text.lower(), fold(text)), text


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Mañana", "manana"),
        ("März", "marz"),
        ("Straße", "strasse"),
        ("São Paulo", "sao paulo"),
        ("ﬁn", "fin"),
    ],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


@given(st.text())
def test_fold_is_idempotent_and_keeps_ascii_length(text: str) -> None:
    assert fold(fold(text)) == fold(text)
    if text.isascii():
        assert len(fold(text)) == len(text)

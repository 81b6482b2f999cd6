"""Scoring of the journeys-dev set, as its README (../shared/data/journeys-dev/README.md) specifies.

Pure: every function takes plain dicts (an expectation, a chat answer, the route preview's ``missing``,
the earlier turns of the journey) and returns a verdict with a short human reason when it is wrong, so
the rules are tested without a service (tests/test_eval_journeys.py). scripts/eval_journeys.py replays
the journeys over HTTP and hands the answers here.

A turn record, as ``score_turn`` and ``summarise`` read it: ``expect``, ``status`` (the chat's HTTP
status), ``chat`` (``text``, ``tool_calls``, ``sources``), ``missing`` (the route preview's).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BOOKING = ("flight_search", "hotel_search", "cheapest_dates", "flight_inspiration")
DATES = frozenset({"departure_date", "return_date", "check_in", "check_out", "start_date"})
PLACES = frozenset({"origin", "destination", "city", "keyword"})
NUMBERS = frozenset({"adults", "children", "rooms", "nights", "max_price"})
NOCASE = frozenset({"cabin", "category"})
OFFER_KIND = {"flight_search": "flight_offer", "hotel_search": "hotel_offer"}
RECALL_PLACE = {"flight_search": "destination", "hotel_search": "city"}
KINDS = ("tool", "guide", "plan", "ask", "recall", "no_guide", "none", "any_of")
SHORT_FORMS = {
    "nyc": "new york",
    "new york city": "new york",
    "dc": "washington",
    "washington dc": "washington",
    "rio": "rio de janeiro",
    "cdmx": "mexico city",
    "sf": "san francisco",
    "la": "los angeles",
    "vegas": "las vegas",
    "philly": "philadelphia",
    "kl": "kuala lumpur",
}
# IATA metropolitan-area codes: a code that names a city's airports together, in no airport table.
METRO = {
    "NYC": "new york",
    "LON": "london",
    "PAR": "paris",
    "CHI": "chicago",
    "WAS": "washington",
    "YTO": "toronto",
    "YMQ": "montreal",
    "YEA": "edmonton",
    "TYO": "tokyo",
    "OSA": "osaka",
    "NGO": "nagoya",
    "ROM": "rome",
    "MIL": "milan",
    "VCE": "venice",
    "SAO": "sao paulo",
    "RIO": "rio de janeiro",
    "BHZ": "belo horizonte",
    "BUE": "buenos aires",
    "SEL": "seoul",
    "BER": "berlin",
    "STO": "stockholm",
    "OSL": "oslo",
    "MOW": "moscow",
    "BJS": "beijing",
    "SHA": "shanghai",
    "JKT": "jakarta",
    "BKK": "bangkok",
    "REK": "reykjavik",
    "BUH": "bucharest",
    "DTT": "detroit",
    "QDF": "dallas",
    "HOU": "houston",
    "QMI": "miami",
    "QSF": "san francisco",
    "QLA": "los angeles",
    "EAP": "basel",
}
DAY_HEADING = re.compile(r"\*\*\s*(?:day|d[ií]a|jour|tag|giorno)\s*(\d+)\s*\*\*", re.IGNORECASE)
PRICE = re.compile(r"([\d][\d,]*(?:\.\d+)?)\s+([A-Z]{3})\s+total")


def _ascii(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def norm_place(text: str) -> str:
    """The README's normal form of a place: accents removed, lower case, the part before the first comma,
    dots removed, hyphens to spaces, a trailing "DC" dropped, short forms expanded."""
    s = _ascii(str(text)).lower().split(",")[0].replace(".", "").replace("-", " ")
    s = " ".join(s.split())
    if s.endswith(" dc"):
        s = s[:-3].rstrip()
    return SHORT_FORMS.get(s, s)


def is_code(text: str) -> bool:
    return bool(re.fullmatch(r"[A-Z]{3}", str(text).strip()))


@dataclass(frozen=True, repr=False)
class PlaceTables:
    """What a code stands for: the public IATA airport table (code -> airport name, city), the
    sandbox's cities (name, city code, airports), and the codes a name resolves to."""

    airports: Mapping[str, tuple[str, str]]
    cities: Sequence[tuple[str, str, tuple[str, ...]]]
    resolve: Callable[[str], Iterable[str]]

    @classmethod
    def load(cls) -> PlaceTables:
        import airportsdata

        from connectors.places import LocationCatalogue

        catalogue = LocationCatalogue.load()

        def resolve(name: str) -> tuple[str, ...]:
            place = catalogue.resolve(name)
            return (place.code, place.city_code) if place else ()

        table = airportsdata.load("IATA")
        return cls(
            {code: (row["name"], row["city"]) for code, row in table.items()},
            [(c.name, c.city_code, tuple(c.airports)) for c in catalogue.cities],
            lru_cache(maxsize=None)(resolve),
        )

    def names_of(self, code: str) -> set[str]:
        """The normalised names of the cities a three-letter code stands for."""
        out = {METRO[code]} if code in METRO else set()
        if code in self.airports:
            out.add(norm_place(self.airports[code][1]))
        out |= {norm_place(n) for n, city, airports in self.cities if code == city or code in airports}
        return out

    def airport_named(self, code: str, name: str) -> bool:
        """Whether the airport ``code``'s name holds a word of four letters or more of ``name``."""
        if code not in self.airports:
            return False
        words = set(re.split(r"[^a-z0-9]+", _ascii(self.airports[code][0]).lower()))
        return any(len(w) >= 4 and w in words for w in name.split())

    def codes_of(self, value: str) -> set[str]:
        """The codes a called value is or resolves to (a city code stands for its airports too)."""
        value = value.strip()
        out = {value} if is_code(value) else {c.upper() for c in self.resolve(value)}
        for _, city, airports in self.cities:
            if city in out:
                out |= set(airports)
        return out


def place_matches(want: Any, got: Any, tables: PlaceTables) -> bool:
    """An expected place (a name, a code, or a list of alternatives) against a called value."""
    if got is None or not str(got).strip():
        return False
    got = str(got).strip()
    for alt in want if isinstance(want, list) else [want]:
        alt = str(alt)
        if is_code(alt):  # an expected code pins one place
            if alt in tables.codes_of(got):
                return True
            continue
        name = norm_place(alt)
        if norm_place(got) == name:
            return True
        if is_code(got) and (name in tables.names_of(got) or tables.airport_named(got, name)):
            return True
    return False


# Parameters.


def _unset(value: Any) -> bool:
    """Missing, null, empty or false (a zero too), as ``absent`` reads it."""
    return value is None or value is False or value in ("", 0) or value == [] or value == {}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(want: Any) -> str:
    if isinstance(want, list):
        return "/".join(map(str, want))
    return str(want)


def _date(value: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def param_problem(
    tool: str, name: str, want: Any, params: Mapping[str, Any], today: dt.date, tables: PlaceTables
) -> str | None:
    """Why a call's parameter ``name`` does not hold the expected value (None: it does)."""
    if tool == "weather_forecast" and name == "day":
        day = today + dt.timedelta(days=int(want["rel"]))
        start = _date(params.get("start_date")) or today
        days = int(params.get("days") or 16)
        if start <= day < start + dt.timedelta(days=days):
            return None
        return f"forecast {start}+{days}d misses {day} (today+{want['rel']})"
    got = params.get(name)
    if _unset(got) and not _number(got):  # a zero is a value to compare, not a missing one
        return f"{name} missing (want {_want_label(want, today)})"
    if name in DATES:
        if isinstance(want, dict):
            target = (today + dt.timedelta(days=int(want["rel"]))).isoformat()
            return None if str(got)[:10] == target else f"{name} {got} != {target} (today+{want['rel']})"
        return None if str(got)[5:10] == want else f"{name} {str(got)[5:10]} != {want}"
    if name in PLACES:
        return None if place_matches(want, got, tables) else f"{name} {got!r} != {_show(want)}"
    if name in NUMBERS or isinstance(want, int | float):
        try:
            same = float(got) == float(want)
        except (TypeError, ValueError):
            same = False
        return None if same else f"{name} {got} != {want}"
    return None if str(got).lower() == str(want).lower() else f"{name} {got} != {want}"


def _want_label(want: Any, today: dt.date) -> str:
    if isinstance(want, dict) and "rel" in want:
        return f"{today + dt.timedelta(days=int(want['rel']))}, today+{want['rel']}"
    return _show(want)


def call_problems(
    expect: Mapping[str, Any], call: Mapping[str, Any], today: dt.date, tables: PlaceTables
) -> list[str]:
    """Every way one call of the expected tool is off: listed parameters wrong, ``absent`` ones set."""
    params = call.get("params") or {}
    tool = expect["tool"]
    out = [
        p
        for name, want in (expect.get("params") or {}).items()
        if (p := param_problem(tool, name, want, params, today, tables))
    ]
    out += [
        f"{name} set ({params[name]}), expected none"
        for name in expect.get("absent", [])
        if not _unset(params.get(name))
    ]
    return out


# What an answer shows.


@lru_cache(maxsize=1)
def guided_cities(folder: Path = ROOT / "seed_data" / "guides") -> tuple[str, ...]:
    """The seeded city guides' cities (their front matter's ``city:``), longest name first."""
    out = []
    for path in sorted(folder.glob("*.md")):
        m = re.search(r"^city:\s*(.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        if m:
            out.append(m.group(1).strip())
    return tuple(sorted(out, key=len, reverse=True))


def guide_city(source: Mapping[str, Any], guided: Sequence[str]) -> str | None:
    """The city whose guide a source cites, or None (an offer, a topic guide, another document)."""
    if source.get("kind") not in (None, "document"):
        return None
    head = str(source.get("title") or "").lower().split(">")[0].strip()
    if not re.search(r"\bguide\b", head):
        return None
    return next((c for c in guided if head.startswith(c.lower())), None)


def cited_guides(sources: Iterable[Mapping[str, Any]], guided: Sequence[str]) -> list[tuple[str, str]]:
    """(city, section) of every city guide cited, in order."""
    out = []
    for s in sources:
        city = guide_city(s, guided)
        if city:
            out.append((city, str(s.get("section") or "")))
    return out


def offer_identity(source: Mapping[str, Any]) -> str:
    text = str(source.get("excerpt") or source.get("title") or "")
    return " ".join(text.split(" total")[0].split())[:160]


def offer_price(source: Mapping[str, Any]) -> float | None:
    m = PRICE.search(str(source.get("excerpt") or source.get("title") or ""))
    return float(m.group(1).replace(",", "")) if m else None


def offers(answer: Mapping[str, Any], tool: str) -> list[tuple[str, float | None]]:
    """(identity, price) of the offers of ``tool``'s kind an answer shows, in order."""
    kind = OFFER_KIND.get(tool)
    return [(offer_identity(s), offer_price(s)) for s in answer.get("sources") or [] if s.get("kind") == kind]


def _names(calls: Iterable[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(c.get("name")) for c in calls))


def _cut(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _said(answer: Mapping[str, Any]) -> str:
    """The start of what the answer says, to tell an ask, a refusal and a fallback apart."""
    text = " ".join(str(answer.get("text") or "").split())
    return f'said "{_cut(text, 70)}"' if text else "said nothing"


def _cited(answer: Mapping[str, Any]) -> str:
    """What an answer cited instead (other documents' titles), or what it said."""
    titles = [str(s.get("title")) for s in answer.get("sources") or [] if s.get("kind") in (None, "document")]
    return "cited " + ", ".join(dict.fromkeys(titles)) if titles else _said(answer)


def _brief_call(call: Mapping[str, Any]) -> str:
    """A call's place and dates, e.g. "city NCE 2026-11-29..2026-12-03"."""
    p = call.get("params") or {}
    place = " ".join(f"{k} {p[k]}" for k in ("origin", "destination", "city") if p.get(k))
    dates = "..".join(
        str(p[k]) for k in ("departure_date", "return_date", "check_in", "check_out") if p.get(k)
    )
    return " ".join(x for x in (place, dates) if x)


# Expectation kinds: each returns None when right, else the reason.


def _tool(e: Mapping[str, Any], answer: Mapping[str, Any], today: dt.date, tables: PlaceTables) -> str | None:
    tool = e["tool"]
    calls = answer.get("tool_calls") or []
    mine = [c for c in calls if c.get("name") == tool]
    if not mine:
        other = _names(calls)
        return f"no {tool} call ({'called ' + ', '.join(other) if other else 'no tool called; ' + _said(answer)})"
    ok = [c for c in mine if not c.get("error")]
    if not ok:
        return f"{tool} failed: {mine[0].get('error')}"
    problems = min((call_problems(e, c, today, tables) for c in ok), key=len)
    return f"{tool} " + "; ".join(problems) if problems else None


def _guides_problems(
    want: Sequence[str],
    cited: list[tuple[str, str]],
    sections: Sequence[str] | None,
    instead: str,
) -> list[str]:
    """Why the cited city guides are not right: ``instead`` says what the answer gave in their place."""
    wanted = {w.lower() for w in want}
    right = [(c, s) for c, s in cited if c.lower() in wanted]
    other = list(dict.fromkeys(c for c, _ in cited if c.lower() not in wanted))
    out = []
    label = "/".join(want)
    if other and right:
        out.append(f"also cited {', '.join(other)} guide")
    elif other:
        out.append(f"cited {', '.join(other)} guide, expected {label}")
    elif not right:
        out.append(f"no {label} guide cited ({instead})")
    if right and sections and not any(n.lower() in s.lower() for _, s in right for n in sections):
        got = ", ".join(dict.fromkeys(s or "-" for _, s in right))
        out.append(f"{label} guide sections [{got}] lack {' / '.join(sections)}")
    return out


def _forbidden(calls: Sequence[Mapping[str, Any]], forbid: Iterable[str]) -> list[str]:
    hit = [n for n in _names(calls) if n in set(forbid)]
    return [f"called {', '.join(hit)}"] if hit else []


def _guide(e: Mapping[str, Any], answer: Mapping[str, Any], guided: Sequence[str]) -> str | None:
    want = e["guide"] if isinstance(e["guide"], list) else [e["guide"]]
    cited = cited_guides(answer.get("sources") or [], guided)
    out = _guides_problems(want, cited, e.get("sections"), _cited(answer))
    out += _forbidden(answer.get("tool_calls") or [], e.get("forbid_tools", BOOKING))
    return "; ".join(out) or None


def _plan(e: Mapping[str, Any], answer: Mapping[str, Any], guided: Sequence[str]) -> str | None:
    days = {int(n) for n in DAY_HEADING.findall(str(answer.get("text") or ""))}
    want = set(range(1, int(e["days"]) + 1))
    out = []
    if not days:
        out.append(f"no **Day N** headings ({_said(answer)})")
    elif days != want:
        extra, lacking = sorted(days - want), sorted(want - days)
        what = ([f"no Day {', '.join(map(str, lacking))}"] if lacking else []) + (
            [f"extra Day {', '.join(map(str, extra))}"] if extra else []
        )
        out.append(f"day headings {', '.join(what)} (want 1..{e['days']})")
    instead = (
        _cited(answer)
        if days
        else _cited({"sources": answer.get("sources")}).replace("said nothing", "no sources")
    )
    out += _guides_problems([e["plan"]], cited_guides(answer.get("sources") or [], guided), None, instead)
    out += _forbidden(answer.get("tool_calls") or [], BOOKING)
    return "; ".join(out) or None


def _ask(e: Mapping[str, Any], answer: Mapping[str, Any], missing: Mapping[str, Any] | None) -> str | None:
    tool = e["ask"]
    out = _forbidden(answer.get("tool_calls") or [], [tool])
    if missing is None:
        return "; ".join([*out, "no route preview (/v1/route failed)"])
    got = missing.get(tool)
    if got is None or set(got) != set(e["missing"]):
        shown = ", ".join(sorted(got)) if got else "nothing"
        out.append(f"route missing[{tool}] = {shown}, want {', '.join(sorted(e['missing']))}")
    return "; ".join(out) or None


def _no_guide(e: Mapping[str, Any], answer: Mapping[str, Any], guided: Sequence[str]) -> str | None:
    out = []
    if str(e["no_guide"]).casefold() not in str(answer.get("text") or "").casefold():
        out.append(f"text does not name {e['no_guide']}")
    allowed = {a.lower() for a in e.get("allow_guides") or []}
    other = list(
        dict.fromkeys(
            c for c, _ in cited_guides(answer.get("sources") or [], guided) if c.lower() not in allowed
        )
    )
    if other:
        out.append(f"cited {', '.join(other)} guide for {e['no_guide']} (no guide)")
    out += _forbidden(answer.get("tool_calls") or [], BOOKING)
    return "; ".join(out) or None


def expected_tool(expect: Mapping[str, Any], tool: str) -> Mapping[str, Any] | None:
    """The ``tool: T`` expectation of a turn, alternatives inside any_of included (the last one wins)."""
    if expect.get("tool") == tool:
        return expect
    found = None
    for alt in expect.get("any_of") or []:
        found = expected_tool(alt, tool) or found
    return found


def base_search(
    tool: str, history: Sequence[Mapping[str, Any]], tables: PlaceTables
) -> tuple[int, Mapping[str, Any]] | str:
    """The recall's base search: (index in history, that turn's answer), or why there is none."""
    key = RECALL_PLACE.get(tool)
    want = None
    for turn in reversed(history):
        found = expected_tool(turn["expect"], tool)
        if found is not None:
            want = (found.get("params") or {}).get(key) if key else None
            break
    for i in range(len(history) - 1, -1, -1):
        answer = history[i].get("chat") or {}
        for c in answer.get("tool_calls") or []:
            if c.get("name") != tool or c.get("error"):
                continue
            if want is None or place_matches(want, (c.get("params") or {}).get(key), tables):
                return i, answer
    where = f" with {key} {_show(want)}" if want is not None else ""
    earlier = [
        c for t in history for c in (t.get("chat") or {}).get("tool_calls") or [] if c.get("name") == tool
    ]
    seen = "; ".join(
        f"{_brief_call(c)}{' failed: ' + str(c['error']) if c.get('error') else ''}" for c in earlier[-2:]
    )
    return f"no earlier error-free {tool}{where} to recall ({'earlier: ' + seen if seen else 'none earlier'})"


def _recall(
    e: Mapping[str, Any], answer: Mapping[str, Any], history: Sequence[Mapping[str, Any]], tables: PlaceTables
) -> str | None:
    tool = e["recall"]
    out = [
        f"called {n} (another booking search)"
        for n in _names(answer.get("tool_calls") or [])
        if n in BOOKING and n != tool
    ]
    base = base_search(tool, history, tables)
    fresh = [_brief_call(c) for c in answer.get("tool_calls") or [] if c.get("name") == tool]
    again = f" (searched again: {'; '.join(fresh)})" if fresh else ""
    if isinstance(base, str):
        return "; ".join([base + again, *out])
    index, base_answer = base
    turn = history[index].get("turn", index)
    base_offers = dict(reversed(offers(base_answer, tool)))  # identity -> price, the first one kept
    shown = offers(answer, tool)
    kind = OFFER_KIND.get(tool, tool)
    if not shown:
        out.append(f"shows no {kind} ({_said(answer)})")
    elif not any(i in base_offers for i, _ in shown):
        base_call = next(
            c for c in base_answer.get("tool_calls") or [] if c.get("name") == tool and not c.get("error")
        )
        out.append(
            f"none of the {len(shown)} {kind}s shown is from the base search "
            f"(turn {turn}: {_brief_call(base_call)}){again}"
        )
    elif e.get("pick") == "cheapest":
        prices = [p for p in base_offers.values() if p is not None]
        first, price = shown[0]
        cheapest = min(prices) if prices else None
        if first not in base_offers or cheapest is None or base_offers[first] != cheapest:
            out.append(
                f"first {kind} shown ({_cut(first, 50)}: {price}) is not the base search's cheapest ({cheapest})"
            )
    return "; ".join(out) or None


def kind_of(expect: Mapping[str, Any]) -> str:
    return next(k for k in KINDS if k in expect)


def judge(
    e: Mapping[str, Any],
    answer: Mapping[str, Any],
    missing: Mapping[str, Any] | None,
    history: Sequence[Mapping[str, Any]],
    today: dt.date,
    tables: PlaceTables,
    guided: Sequence[str],
) -> str | None:
    """None when the answer meets one expectation, else why not."""
    kind = kind_of(e)
    if kind == "any_of":
        reasons = [judge(alt, answer, missing, history, today, tables, guided) for alt in e["any_of"]]
        if any(r is None for r in reasons):
            return None
        return " | ".join(f"[{kind_of(alt)}] {r}" for alt, r in zip(e["any_of"], reasons, strict=True))
    if kind == "tool":
        return _tool(e, answer, today, tables)
    if kind == "guide":
        return _guide(e, answer, guided)
    if kind == "plan":
        return _plan(e, answer, guided)
    if kind == "ask":
        return _ask(e, answer, missing)
    if kind == "recall":
        return _recall(e, answer, history, tables)
    if kind == "no_guide":
        return _no_guide(e, answer, guided)
    names = _names(answer.get("tool_calls") or [])
    return f"called {', '.join(names)}" if names else None  # none


def score_turn(
    turn: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    today: dt.date,
    tables: PlaceTables,
    guided: Sequence[str] | None = None,
) -> str | None:
    """A turn record against its expectation, given the journey's earlier turn records: None when
    right, else the reason. A chat call that did not answer 200 is wrong."""
    status = turn.get("status", 200)
    if status != 200:
        return f"chat HTTP {status}: {_cut(str(turn.get('error') or ''), 80)}"
    guided = guided_cities() if guided is None else guided
    return judge(turn["expect"], turn.get("chat") or {}, turn.get("missing"), history, today, tables, guided)


def score_journey(
    turns: Sequence[Mapping[str, Any]],
    today: dt.date,
    tables: PlaceTables,
    guided: Sequence[str] | None = None,
) -> list[str | None]:
    """Each turn's verdict (None: right), in order, each judged with the turns before it."""
    return [score_turn(t, turns[:i], today, tables, guided) for i, t in enumerate(turns)]


def _tally(
    records: Sequence[Mapping[str, Any]], key: Callable[[Mapping[str, Any]], str]
) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in records:
        row = out.setdefault(key(r), {"right": 0, "turns": 0})
        row["turns"] += 1
        row["right"] += bool(r["ok"])
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["turns"]))


def summarise(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The README's figures from scored turn records (``journey``, ``lang``, ``expect``, ``ok``)."""
    journeys: dict[str, bool] = {}
    for r in records:
        journeys[r["journey"]] = journeys.get(r["journey"], True) and bool(r["ok"])
    return {
        "turns": {"right": sum(bool(r["ok"]) for r in records), "turns": len(records)},
        "journeys": {"right": sum(journeys.values()), "turns": len(journeys)},
        "by_kind": _tally(records, lambda r: kind_of(r["expect"])),
        "by_tool": _tally([r for r in records if "tool" in r["expect"]], lambda r: r["expect"]["tool"]),
        "by_lang": _tally(records, lambda r: str(r.get("lang"))),
    }


def format_summary(m: Mapping[str, Any]) -> str:
    def row(name: str, v: Mapping[str, int]) -> str:
        pct = f"{100 * v['right'] / v['turns']:.1f}%" if v["turns"] else "-"
        return f"{name:24} {v['right']:5d} {v['turns']:5d} {pct:>7}"

    lines = [
        f"{'':24} {'right':>5} {'of':>5} {'':>7}",
        row("turns", m["turns"]),
        row("journeys (all right)", m["journeys"]),
    ]
    lines.append("by kind")
    for k, v in m["by_kind"].items():
        lines.append(row(f"  {k}", v))
        if k == "tool":
            lines += [row(f"    {t}", tv) for t, tv in m["by_tool"].items()]
    lines.append("by language")
    lines += [row(f"  {k}", v) for k, v in m["by_lang"].items()]
    return "\n".join(lines)

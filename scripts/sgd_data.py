"""Schema-Guided Dialogue (SGD) travel dialogues: loading, span access, and the map onto our tools. Pure.

    from scripts.sgd_data import load_dialogues
    for d in load_dialogues("train"):
        for turn in d.user_turns():
            for span in turn.spans():          # Span(service, slot, start, end, text)
                print(turn.utterance[span.start : span.end], span.slot)

The data (../shared/data/sgd-travel/{train,dev}.jsonl and *_schema.json, CC BY-SA 4.0; see that
folder's README) holds only dialogues whose every service is Flights_*, Hotels_*, Travel_1 or
Weather_1. The test split is deliberately absent and ``load_dialogues`` refuses it. SGD's dialogues were
written as if today were 2019-03-01 (``TODAY``); dates in service calls and in actions'
``canonical_values`` are ISO.

``SLOTS`` maps each service's slots onto our tool parameters, ``METHODS`` each service method onto a
tool, and ``IGNORED_SLOTS`` names the slots we deliberately leave out (no parameter of ours takes
them); ``unmapped(schema)`` lists anything a schema holds that none of the three covers, so a new
service or slot cannot slip through silently. Nothing here imports the service.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "sgd-travel"
TODAY = dt.date(2019, 3, 1)  # a Friday: SGD's "today"
SPLITS = ("train", "dev")


@dataclass(frozen=True, slots=True)
class Span:
    """A slot value's characters in a user utterance: ``utterance[start:end]`` is ``text``."""

    service: str
    slot: str
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """What SGD's assistant called after a user turn: parameters are canonical (dates ISO)."""

    service: str
    method: str
    parameters: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn as published; ``frames`` is the raw list (actions, slots, state, service_call)."""

    index: int  # position in the dialogue (users at even positions, the assistant at odd ones)
    speaker: str  # "USER" or "SYSTEM"
    utterance: str
    frames: list[dict[str, Any]]

    def spans(self) -> list[Span]:
        """The annotated slot values of this turn's utterance (user and system turns both have them)."""
        out = []
        for f in self.frames:
            for s in f.get("slots", []):
                start, end = s["start"], s["exclusive_end"]
                out.append(Span(f["service"], s["slot"], start, end, self.utterance[start:end]))
        return sorted(out, key=lambda s: (s.start, s.end))

    def state(self) -> dict[str, dict[str, list[str]]]:
        """Service -> slot -> values (as said) after this user turn: SGD's dialogue state, cumulative."""
        return {f["service"]: f["state"]["slot_values"] for f in self.frames if "state" in f}

    def intents(self) -> dict[str, str]:
        """Service -> active intent after this user turn ("NONE" when none)."""
        return {f["service"]: f["state"]["active_intent"] for f in self.frames if "state" in f}

    def actions(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(service, action) for each dialogue act: ``act``, ``slot``, ``values``, ``canonical_values``."""
        for f in self.frames:
            for a in f.get("actions", []):
                yield f["service"], a

    def service_calls(self) -> list[ServiceCall]:
        return [
            ServiceCall(f["service"], f["service_call"]["method"], f["service_call"]["parameters"])
            for f in self.frames
            if f.get("service_call")
        ]


@dataclass(frozen=True, slots=True)
class Dialogue:
    dialogue_id: str
    services: list[str]
    turns: list[Turn]
    _canonical: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)

    def user_turns(self) -> list[Turn]:
        return [t for t in self.turns if t.speaker == "USER"]

    def reply(self, turn: Turn) -> Turn | None:
        """The assistant's turn answering a user turn (where SGD's service calls are), if any."""
        nxt = turn.index + 1
        return self.turns[nxt] if nxt < len(self.turns) and self.turns[nxt].speaker == "SYSTEM" else None

    def canonical(self, slot: str, value: str) -> str | None:
        """A value as said ("3rd of March") in its canonical form ("2019-03-03"), from any act of the
        dialogue that carries both; None when no act does."""
        if not self._canonical:
            for t in self.turns:
                for _, a in t.actions():
                    for said, canon in zip(a.get("values", []), a.get("canonical_values", []), strict=False):
                        self._canonical.setdefault((a["slot"], said), canon)
        return self._canonical.get((slot, value))


def parse_dialogue(raw: Mapping[str, Any]) -> Dialogue:
    turns = [
        Turn(i, t["speaker"], t["utterance"], list(t.get("frames", []))) for i, t in enumerate(raw["turns"])
    ]
    return Dialogue(str(raw["dialogue_id"]), list(raw.get("services", [])), turns)


def load_dialogues(split: str, data_dir: Path = DATA_DIR) -> list[Dialogue]:
    """Every dialogue of ``split`` ("train" or "dev"), in file order."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {', '.join(SPLITS)} (the test split is not used)")
    with (data_dir / f"{split}.jsonl").open(encoding="utf-8") as fh:
        return [parse_dialogue(json.loads(line)) for line in fh if line.strip()]


def load_schema(split: str, data_dir: Path = DATA_DIR) -> dict[str, dict[str, Any]]:
    """Service name -> its schema entry (``intents`` with required and optional slots, ``slots``)."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {', '.join(SPLITS)}")
    rows = json.loads((data_dir / f"{split}_schema.json").read_text(encoding="utf-8"))
    return {row["service_name"]: row for row in rows}


# The map onto our tools.

FLIGHT_SLOTS = {
    "departure_date": "departure_date",
    "return_date": "return_date",
    "passengers": "adults",
}
SLOTS: dict[str, dict[str, str]] = {
    "Flights_1": {
        **FLIGHT_SLOTS,
        "origin_city": "origin",
        "destination_city": "destination",
        "seating_class": "cabin",
    },
    "Flights_2": {**FLIGHT_SLOTS, "origin": "origin", "destination": "destination", "seating_class": "cabin"},
    "Flights_3": {
        **FLIGHT_SLOTS,
        "origin_city": "origin",
        "destination_city": "destination",
        "flight_class": "cabin",
    },
    "Hotels_1": {
        "destination": "city",
        "check_in_date": "check_in",
        "number_of_days": "nights",
        "number_of_rooms": "rooms",
    },
    "Hotels_2": {
        "where_to": "city",
        "check_in_date": "check_in",
        "check_out_date": "check_out",
        "number_of_adults": "adults",
    },
    "Hotels_3": {
        "location": "city",
        "check_in_date": "check_in",
        "check_out_date": "check_out",
        "number_of_rooms": "rooms",
    },
    "Hotels_4": {
        "location": "city",
        "check_in_date": "check_in",
        "stay_length": "nights",
        "number_of_rooms": "rooms",
    },
    "Travel_1": {"location": "city"},
    "Weather_1": {"city": "city", "date": "start_date"},
}


@dataclass(frozen=True, slots=True)
class MethodMap:
    tool: str
    # A booking: scored as a search only when the dialogue has not searched that service before (our
    # tools search; they do not book).
    reservation: bool = False
    one_way: bool = False  # a one-way search: a return date in our call is wrong


_ONE_WAY = MethodMap("flight_search", one_way=True)
_ROUND = MethodMap("flight_search")
_HOTEL = MethodMap("hotel_search")
_HOTEL_BOOKING = MethodMap("hotel_search", reservation=True)
METHODS: dict[tuple[str, str], MethodMap] = {
    ("Flights_1", "SearchOnewayFlight"): _ONE_WAY,
    ("Flights_1", "SearchRoundtripFlights"): _ROUND,
    ("Flights_1", "ReserveOnewayFlight"): MethodMap("flight_search", reservation=True, one_way=True),
    ("Flights_1", "ReserveRoundtripFlights"): MethodMap("flight_search", reservation=True),
    ("Flights_2", "SearchOnewayFlight"): _ONE_WAY,
    ("Flights_2", "SearchRoundtripFlights"): _ROUND,
    ("Flights_3", "SearchOnewayFlight"): _ONE_WAY,
    ("Flights_3", "SearchRoundtripFlights"): _ROUND,
    ("Hotels_1", "SearchHotel"): _HOTEL,
    ("Hotels_1", "ReserveHotel"): _HOTEL_BOOKING,
    ("Hotels_2", "SearchHouse"): _HOTEL,
    ("Hotels_2", "BookHouse"): _HOTEL_BOOKING,
    ("Hotels_3", "SearchHotel"): _HOTEL,
    ("Hotels_3", "ReserveHotel"): _HOTEL_BOOKING,
    ("Hotels_4", "SearchHotel"): _HOTEL,
    ("Hotels_4", "ReserveHotel"): _HOTEL_BOOKING,
    ("Travel_1", "FindAttractions"): MethodMap("activity_search"),
    ("Weather_1", "GetWeather"): MethodMap("weather_forecast"),
}

# Slots no parameter of ours takes: preferences our tools cannot filter on, and what the assistant
# reports (results) rather than what the traveller asks for.
_FLIGHT_RESULTS = (
    "origin_airport destination_airport origin_airport_name destination_airport_name number_stops "
    "outbound_departure_time outbound_arrival_time inbound_arrival_time inbound_departure_time price fare "
    "arrives_next_day"
).split()
_HOTEL_RESULTS = "hotel_name place_name street_address address phone_number price_per_night price total_price average_rating rating".split()
IGNORED_SLOTS: dict[str, frozenset[str]] = {
    "Flights_1": frozenset(_FLIGHT_RESULTS + ["airlines", "refundable"]),
    "Flights_2": frozenset(_FLIGHT_RESULTS + ["airlines", "is_redeye"]),
    "Flights_3": frozenset(_FLIGHT_RESULTS + ["airlines", "number_checked_bags"]),
    "Hotels_1": frozenset(_HOTEL_RESULTS + ["star_rating", "has_wifi"]),
    "Hotels_2": frozenset(_HOTEL_RESULTS + ["has_laundry_service"]),
    "Hotels_3": frozenset(_HOTEL_RESULTS + ["pets_welcome"]),
    "Hotels_4": frozenset(_HOTEL_RESULTS + ["star_rating", "smoking_allowed"]),
    "Travel_1": frozenset("attraction_name category phone_number free_entry good_for_kids".split()),
    "Weather_1": frozenset("precipitation humidity wind temperature".split()),
}
# Slots naming a place, in any service (what a trip's places are checked against).
PLACE_SLOTS = frozenset(
    "origin_city destination_city origin destination location where_to city "
    "origin_airport destination_airport origin_airport_name destination_airport_name".split()
)
CABINS = {
    "Economy": "ECONOMY",
    "Premium Economy": "PREMIUM_ECONOMY",
    "Business": "BUSINESS",
    "First Class": "FIRST",
}
DATES = frozenset({"departure_date", "return_date", "check_in", "check_out", "start_date"})
COUNTS = frozenset({"adults", "rooms", "nights"})


def unmapped(schema: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Services, methods and slots of a schema that neither the map nor the ignore lists cover."""
    out = []
    for name, service in schema.items():
        if name not in SLOTS:
            out.append(f"service {name}")
            continue
        for intent in service["intents"]:
            if (name, intent["name"]) not in METHODS:
                out.append(f"method {name}.{intent['name']}")
        for slot in service["slots"]:
            if slot["name"] not in SLOTS[name] and slot["name"] not in IGNORED_SLOTS[name]:
                out.append(f"slot {name}.{slot['name']}")
    return out


def our_value(param: str, value: str) -> Any:
    """An SGD canonical value as our parameter holds it: cabin names, counts as ints, dates as ISO text,
    places as said; None for "dontcare" or a value that cannot be read."""
    if value in ("dontcare", ""):
        return None
    if param == "cabin":
        return CABINS.get(value)
    if param in COUNTS:
        return int(value) if value.isdigit() else None
    if param in DATES:
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            return None
    return value


def mapped_params(service: str, values: Mapping[str, str]) -> dict[str, Any]:
    """SGD slot values (canonical) of ``service`` as our parameters; unmapped slots left out."""
    out = {}
    for slot, value in values.items():
        param = SLOTS.get(service, {}).get(slot)
        if param is not None and (v := our_value(param, value)) is not None:
            out[param] = v
    return out


# What SGD's assistant did, as our tools would have to do it.


@dataclass(frozen=True, slots=True)
class Expected:
    """After user turn ``turn``, our ``tool`` should be called (or its missing parameters asked for),
    because SGD's assistant called ``service.method`` there."""

    turn: int  # the user turn's index in ``Dialogue.turns``
    service: str
    method: str
    tool: str
    # Our parameters with SGD's values: the call's, then the dialogue state's (a hotel search's
    # check-in the traveller gave but SGD's SearchHotel does not take), then the schema's defaults.
    # None means "must be absent" (a one-way search's return date); a check-out becomes ``nights``.
    params: dict[str, Any]
    required: tuple[str, ...]  # what our tool needs
    given: frozenset[str]  # which of those the traveller had given in this service so far
    # "search": SGD searched (or booked without searching first) after this turn. "booking": SGD
    # booked a service whose searches all lacked something our tool requires (a hotel search with
    # no check-in); expected at the first turn where the traveller had given all of it.
    kind: str = "search"

    @property
    def missing(self) -> list[str]:
        return sorted(set(self.required) - self.given)

    @property
    def complete(self) -> bool:
        return not self.missing


def _state_params(dialogue: Dialogue, service: str, state: Mapping[str, list[str]]) -> dict[str, Any]:
    """A service's state (values as said) as our parameters, each value made canonical through the
    dialogue's acts; a value that cannot be read maps to ``...`` (given, but unknown)."""
    out: dict[str, Any] = {}
    for slot, values in state.items():
        param = SLOTS.get(service, {}).get(slot)
        if param is None or not values:
            continue
        read = [our_value(param, dialogue.canonical(slot, v) or v) for v in values]
        out[param] = next((v for v in read if v is not None), ...)
    return out


def _expected(
    dialogue: Dialogue,
    turn: Turn,
    call: ServiceCall,
    schema: Mapping[str, Mapping[str, Any]],
    need: tuple[str, ...],
    kind: str = "search",
) -> Expected:
    m = METHODS[(call.service, call.method)]
    intent = next((i for i in schema[call.service]["intents"] if i["name"] == call.method), None)
    defaults = mapped_params(call.service, intent["optional_slots"] if intent else {})
    state = _state_params(dialogue, call.service, turn.state().get(call.service, {}))
    said = mapped_params(call.service, call.parameters)
    # A search's values are the call's. A booking expected earlier than SGD made it holds what had been
    # said by then (the state), the booking's values standing in only for what the state cannot read.
    if kind == "search":
        params = {**defaults, **state, **said}
    else:
        params = {**defaults, **{k: said.get(k, ...) if v is ... else v for k, v in state.items()}}
    if m.one_way:
        params["return_date"] = None
    # What the traveller had given: a booking's own values came later than this turn.
    had = params if kind == "search" else {**defaults, **state}
    given = frozenset(p for p in need if had.get(p) is not None)
    known = {k: v for k, v in params.items() if v is not ...}
    if isinstance(known.get("check_out"), str) and isinstance(known.get("check_in"), str):
        days = dt.date.fromisoformat(known["check_out"]) - dt.date.fromisoformat(known["check_in"])
        known["nights"] = days.days
    known.pop("check_out", None)
    return Expected(turn.index, call.service, call.method, m.tool, known, need, given, kind)


def expectations(
    dialogue: Dialogue, schema: Mapping[str, Mapping[str, Any]], required: Mapping[str, list[str]]
) -> list[Expected]:
    """Where our tools should be called (``required``: tool -> its required parameters), one per tool
    and turn, in turn order: after each user turn SGD's assistant answered with a call mapped to one of
    our tools. A booking counts as a search when the dialogue never searched that service; after
    searches our tool could not run (each lacked a required parameter), it is expected at the first
    turn since the last search where the traveller had given everything; otherwise it is left out."""
    out: list[Expected] = []
    searches: dict[str, list[Expected]] = {}  # service -> its searches so far
    booked: set[str] = set()  # services whose incomplete searches a booking expectation follows
    users = dialogue.user_turns()
    for pos, turn in enumerate(users):
        reply = dialogue.reply(turn)
        if reply is None:
            continue
        tools: set[str] = set()
        for call in reply.service_calls():
            m = METHODS.get((call.service, call.method))
            if m is None or m.tool in tools:
                continue
            need = tuple(required.get(m.tool, ()))
            before = searches.get(call.service, [])
            if not m.reservation or not before:
                e = _expected(dialogue, turn, call, schema, need)
                if not m.reservation:
                    searches.setdefault(call.service, []).append(e)
                    booked.discard(call.service)
            elif call.service not in booked and not any(s.complete for s in before):
                since = [t for t in users[: pos + 1] if t.index > before[-1].turn]
                candidates = [_expected(dialogue, t, call, schema, need, "booking") for t in since]
                e = next((c for c in candidates if c.complete), candidates[-1])
                booked.add(call.service)
            else:
                continue
            tools.add(m.tool)
            out.append(e)
    return sorted(out, key=lambda e: e.turn)


def said_values(turn: Turn, dialogue: Dialogue) -> dict[str, set[Any]]:
    """Every value the traveller had given up to a user turn, in any service (each service's latest
    state), by kind ("date", "place", "count"): what a tool may fairly carry over from elsewhere in
    the conversation (a flight's date as a hotel's check-in)."""
    latest: dict[str, Mapping[str, list[str]]] = {}
    for t in dialogue.user_turns():
        if t.index > turn.index:
            break
        latest.update(t.state())
    out: dict[str, set[Any]] = {"date": set(), "place": set(), "count": set()}
    for service, state in latest.items():
        for param, value in _state_params(dialogue, service, state).items():
            if value is ... or param == "cabin":
                continue
            out["date" if param in DATES else "count" if param in COUNTS else "place"].add(value)
    return out


def place_values(dialogue: Dialogue) -> set[str]:
    """Every place SGD annotates anywhere in the dialogue: acts (as said and canonical), states, spans
    and service calls, user and assistant turns alike."""
    out: set[str] = set()
    for t in dialogue.turns:
        for _, a in t.actions():
            if a["slot"] in PLACE_SLOTS:
                out.update(a.get("values", []), a.get("canonical_values", []))
        for state in t.state().values():
            for slot, values in state.items():
                if slot in PLACE_SLOTS:
                    out.update(values)
        out.update(s.text for s in t.spans() if s.slot in PLACE_SLOTS)
        for c in t.service_calls():
            out.update(v for k, v in c.parameters.items() if k in PLACE_SLOTS)
    return {v for v in out if v and v != "dontcare"}

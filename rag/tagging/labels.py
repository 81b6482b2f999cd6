"""The tagger's labels, and the Schema-Guided Dialogue slots each one stands for. Data, no logic.

A label is the role a span plays in a trip, not the tool it came from: a hotel's, an attraction's and a
forecast's place are all ``place`` (a place with no from/to role: the dialogue tracker makes it the
trip's destination when it has none); only a flight's ends are ``origin`` and ``destination``. The
SGD services are keyed by family ("Flights" for Flights_1, Flights_2, Flights_3 ...), so a service the
fit never saw (dev's Flights_3, Hotels_4) maps the same way. Every slot of every family is listed:
the mapped ones in ``SGD_SLOTS``, the rest in ``SGD_IGNORED`` (tagged O), and the fitting script
refuses a schema slot that is in neither.
"""

from __future__ import annotations

LABELS = ("origin", "destination", "place", "start_date", "end_date", "adults", "rooms", "nights", "cabin")

SGD_SLOTS: dict[str, dict[str, str]] = {
    "Flights": {
        "origin_city": "origin",
        "origin": "origin",
        "origin_airport": "origin",
        "origin_airport_name": "origin",
        "destination_city": "destination",
        "destination": "destination",
        "destination_airport": "destination",
        "destination_airport_name": "destination",
        "departure_date": "start_date",
        "return_date": "end_date",
        "passengers": "adults",  # categorical: projected from the INFORM value
        "seating_class": "cabin",  # categorical
        "flight_class": "cabin",  # categorical
    },
    "Hotels": {
        "destination": "place",
        "where_to": "place",
        "location": "place",
        "check_in_date": "start_date",
        "check_out_date": "end_date",
        "number_of_days": "nights",
        "stay_length": "nights",
        "number_of_adults": "adults",  # categorical
        "number_of_rooms": "rooms",  # categorical
    },
    "Travel": {"location": "place"},
    "Weather": {"city": "place", "date": "start_date"},
}

# Slots we have no use for (times, prices, names of hotels and attractions, ratings, yes/no
# preferences): their words are tagged O, which teaches the tagger that "4.2" of a rating is no date.
SGD_IGNORED: dict[str, frozenset[str]] = {
    "Flights": frozenset(
        "number_stops outbound_departure_time outbound_arrival_time inbound_arrival_time "
        "inbound_departure_time price fare refundable is_redeye airlines number_checked_bags "
        "arrives_next_day".split()
    ),
    "Hotels": frozenset(
        "star_rating hotel_name street_address phone_number price_per_night has_wifi rating address "
        "total_price has_laundry_service average_rating price pets_welcome place_name "
        "smoking_allowed".split()
    ),
    "Travel": frozenset("attraction_name category phone_number free_entry good_for_kids".split()),
    "Weather": frozenset("precipitation humidity wind temperature".split()),
}

# Categorical slots: SGD gives no span, only the value; the fit projects it onto the words that say it.
CATEGORICAL = frozenset({"adults", "rooms", "cabin"})


def sgd_label(service: str, slot: str) -> str | None:
    """Our label for an SGD service's slot ("Flights_3", "origin_city" -> "origin"), None for O."""
    return SGD_SLOTS.get(service.split("_")[0], {}).get(slot)

"""Each place's role in a message, pure: from the words before it ("from X" the origin; "to/in/at X" the
destination; "X to Y" a route, in our six languages), else from a slot tagger's roles; places set side
by side ("Rome or Paris?") have none."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from connectors.places.model import PlaceMention, Roles

# Words before a place that make it the origin or the destination, in our six languages.
_ORIGIN_MARK = re.compile(
    r"(?:\bfrom|\bleaving|\bdeparting|\bout of|\bex|\bdesde|\bde|\bdepuis|\bvon|\baus|\bab|\bda|\bdo|\bdal)\s*$"
)
_DEST_MARK = re.compile(
    r"(?:\bto|\binto|\btowards|\bfor|\bin|\bat|\bnear|\baround|\bvisit(?:ing)?|\bvia|->|→|\bof|"
    r"\ba|\bà|\bau|\ben|\bhacia|\bpara|\bnach|\bem|\bno|\bna|\bper|\bvers|\bpour|\bdans)\s*$"
)
_PAIR_GLUE = re.compile(r"^\s*(?:-|–|->|→|to|/|>|2|a|à|nach|para|per|pra|hasta|bis)\s*$")
# Places set side by side ("Rome or Paris?", "Lisbon vs Porto"): compared, neither is where a trip starts.
_COMPARE_GLUE = re.compile(
    r"^\s*,?\s*(?:or|vs\.?|versus|compared (?:to|with)|rather than|instead of|o|ou|oder|oppure|ovvero|y|and|et|und|e)\s*$"
)


def assign_roles(
    text: str, places: Sequence[PlaceMention], spans: Sequence[tuple[str, int, int]] = ()
) -> Roles:
    """Each place's role from the words before it and the tagger's roles (``spans``: label, start,
    end) where no word says one; the trip's origin and destination."""
    lowered = text.lower()
    roles: list[str | None] = []
    for p in places:
        before = lowered[max(0, p.start - 14) : p.start]
        tagged = next(
            (
                label
                for label, s, e in spans
                if label in ("origin", "destination") and s < p.end and p.start < e
            ),
            None,
        )
        if _ORIGIN_MARK.search(before):
            roles.append("origin")
        elif _DEST_MARK.search(before):
            roles.append("destination")
        else:
            roles.append(tagged)  # "depart New York and arrive San Diego": the tagger read the roles
    if (
        len(places) >= 2
        and all(r is None for r in roles)
        and all(
            _COMPARE_GLUE.match(lowered[a.end : b.start]) for a, b in zip(places, places[1:], strict=False)
        )
    ):
        # "Rome or Paris in spring?": no role for either
        return Roles([dataclasses.replace(p, role=None) for p in places], None, None, True, False)
    route_pair = False
    # "LON-PAR", "London to Paris", "lon par": the first of a pair is the origin.
    for i in range(len(places) - 1):
        a, b = places[i], places[i + 1]
        glue = lowered[a.end : b.start]
        if (_PAIR_GLUE.match(glue) or not glue.strip()) and roles[i] != "destination":
            route_pair = True
            roles[i] = roles[i] or "origin"
            roles[i + 1] = (
                "destination" if roles[i + 1] is None or roles[i + 1] == "destination" else roles[i + 1]
            )
    if len(places) == 2 and roles == ["destination", "destination"]:
        # "flights in Los Angeles ... to Las Vegas": of two places, the one "to" points at is where the
        # trip goes; the other is where it starts.
        marks = [lowered[max(0, p.start - 14) : p.start] for p in places]
        to = [i for i, m in enumerate(marks) if re.search(r"\b(?:to|into|towards)\s*$", m)]
        if len(to) == 1:
            roles[1 - to[0]] = "origin"
    if len(places) == 2 and roles.count(None) == 1:
        missing = roles.index(None)
        roles[missing] = "destination" if "origin" in roles else "origin"
    elif len(places) == 2 and roles == [None, None]:
        roles = ["origin", "destination"]
    placed = [dataclasses.replace(p, role=r) for p, r in zip(places, roles, strict=True)]
    origins = [p for p in placed if p.role == "origin"]
    dests = [p for p in placed if p.role == "destination"]
    origin = origins[0] if origins else None
    destination = next((d for d in dests if not origin or d.place.city_code != origin.place.city_code), None)
    if destination is None and len(placed) == 1 and origin is None:
        destination = placed[0]
    return Roles(placed, origin, destination, False, route_pair)

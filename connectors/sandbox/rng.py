"""Deterministic randomness: every draw comes from a hash of a canonical key, never the global RNG."""

from __future__ import annotations

import hashlib
import random
import string

_ALNUM = string.ascii_uppercase + string.digits
_B62 = string.ascii_letters + string.digits


def canonical_key(*parts: object) -> str:
    """Join the parts of a request key; lists and tuples are joined with commas in order."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, list | tuple):
            out.append(",".join(str(p) for p in part))
        else:
            out.append(str(part))
    return "|".join(out)


def rng_for(*parts: object) -> random.Random:
    """A Random seeded from sha256 of the canonical key: same parts, same draws."""
    digest = hashlib.sha256(canonical_key(*parts).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def unit(*parts: object) -> float:
    """One uniform draw in [0, 1) for the key."""
    return rng_for(*parts).random()


def code(rng: random.Random, length: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def token(*parts: object, length: int = 28) -> str:
    """An Amadeus-looking opaque token (base62) derived from the parts."""
    return code(rng_for("token", *parts), length, _B62)

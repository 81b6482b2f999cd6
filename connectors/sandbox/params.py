"""Query-string parsing for the Amadeus endpoints: collect every problem, then answer 400 with all of them."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence

from connectors.sandbox.errors import (
    INVALID_DATA,
    INVALID_DATE,
    INVALID_FORMAT,
    INVALID_OPTION,
    MANDATORY_DATA_MISSING,
    AmadeusError,
    amadeus_error,
)

_IATA = re.compile(r"^[A-Za-z]{3}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CARRIER = re.compile(r"^[A-Z0-9]{2}$")


def today() -> dt.date:
    """The one clock read of the sandbox: dates are validated against the local calendar day."""
    return dt.date.today()


class AmadeusParams:
    """Typed access to query parameters; each problem becomes an Amadeus error object."""

    def __init__(self, query: Mapping[str, str]) -> None:
        self._query = query
        self.errors: list[dict[str, object]] = []

    def fail(self, kind: tuple[int, str], detail: str, parameter: str) -> None:
        code, title = kind
        self.errors.append(amadeus_error(400, code, title, detail, parameter))

    def raise_if_errors(self) -> None:
        if self.errors:
            raise AmadeusError(400, self.errors)

    def raw(self, name: str) -> str | None:
        value = self._query.get(name)
        return None if value is None or value.strip() == "" else value.strip()

    def string(self, name: str, *, required: bool = False) -> str | None:
        value = self.raw(name)
        if value is None and required:
            self.fail(MANDATORY_DATA_MISSING, "This field must be filled.", name)
        return value

    def iata(self, name: str, *, required: bool = True) -> str | None:
        value = self.string(name, required=required)
        if value is not None and not _IATA.match(value):
            self.fail(INVALID_FORMAT, f"{name} must be a 3-letter IATA code", name)
            return None
        return value.upper() if value else None

    def date(self, name: str, *, required: bool = False, future: bool = True) -> dt.date | None:
        value = self.string(name, required=required)
        if value is None:
            return None
        parsed = parse_date(value)
        if parsed is None:
            self.fail(INVALID_FORMAT, f"{name} must be a valid date in ISO 8601 format YYYY-MM-DD", name)
            return None
        if future and parsed < today():
            self.fail(INVALID_DATE, "Date/Time is in the past", name)
            return None
        return parsed

    def date_range(self, name: str) -> tuple[dt.date, dt.date] | None:
        """'2026-12-01' or '2026-12-01,2026-12-20' (a departure window)."""
        value = self.string(name)
        if value is None:
            return None
        parts = [parse_date(p) for p in value.split(",")]
        if len(parts) > 2 or any(p is None for p in parts):
            self.fail(
                INVALID_FORMAT, f"{name} must be a date YYYY-MM-DD or a range YYYY-MM-DD,YYYY-MM-DD", name
            )
            return None
        first, last = parts[0], parts[-1]
        assert first is not None and last is not None
        if first < today():
            self.fail(INVALID_DATE, "Date/Time is in the past", name)
            return None
        if last < first:
            self.fail(INVALID_DATE, "The end of the range is before its start", name)
            return None
        return first, last

    def integer(
        self, name: str, default: int | None, lo: int, hi: int, *, required: bool = False
    ) -> int | None:
        value = self.string(name, required=required)
        if value is None:
            return default
        if not re.fullmatch(r"-?\d+", value):
            self.fail(INVALID_FORMAT, f"{name} must be an integer", name)
            return default
        number = int(value)
        if not lo <= number <= hi:
            self.fail(INVALID_DATA, f"{name} must be between {lo} and {hi}", name)
            return default
        return number

    def int_range(self, name: str, default: tuple[int, int], lo: int, hi: int) -> tuple[int, int]:
        """'7' or '2,8' (a stay length in days for inspiration and cheapest dates)."""
        value = self.string(name)
        if value is None:
            return default
        parts = value.split(",")
        if len(parts) > 2 or not all(re.fullmatch(r"\d+", p.strip()) for p in parts):
            self.fail(INVALID_FORMAT, f"{name} must be a number of days or a range like 2,8", name)
            return default
        first, last = int(parts[0]), int(parts[-1])
        if not (lo <= first <= last <= hi):
            self.fail(INVALID_DATA, f"{name} must be within {lo} and {hi} days", name)
            return default
        return first, last

    def number(self, name: str, *, lo: float, hi: float, required: bool = False) -> float | None:
        value = self.string(name, required=required)
        if value is None:
            return None
        try:
            number = float(value)
        except ValueError:
            self.fail(INVALID_FORMAT, f"{name} must be a number", name)
            return None
        if not lo <= number <= hi:
            self.fail(INVALID_DATA, f"{name} must be between {lo:g} and {hi:g}", name)
            return None
        return number

    def boolean(self, name: str, default: bool) -> bool:
        value = self.string(name)
        if value is None:
            return default
        if value.lower() not in ("true", "false"):
            self.fail(INVALID_FORMAT, f"{name} must be true or false", name)
            return default
        return value.lower() == "true"

    def choice(self, name: str, options: Sequence[str], default: str | None) -> str | None:
        value = self.string(name)
        if value is None:
            return default
        if value.upper() not in options:
            self.fail(INVALID_OPTION, f"{name} must be one of {', '.join(options)}", name)
            return default
        return value.upper()

    def carriers(self, name: str) -> frozenset[str] | None:
        """IATA airline codes, comma-separated ("UA,LH"; at most 99), or None when not given."""
        value = self.string(name)
        if value is None:
            return None
        codes = [c.strip().upper() for c in value.split(",")]
        if len(codes) > 99 or not all(_CARRIER.match(c) for c in codes):
            self.fail(INVALID_FORMAT, f"{name} must be a comma-separated list of IATA airline codes", name)
            return None
        return frozenset(codes)

    def choices(self, name: str, options: Sequence[str], *, required: bool = False) -> list[str]:
        value = self.string(name, required=required)
        if value is None:
            return []
        picked = [v.strip().upper() for v in value.split(",") if v.strip()]
        bad = [v for v in picked if v not in options]
        if bad or not picked:
            self.fail(INVALID_OPTION, f"{name} must be a comma-separated list of {', '.join(options)}", name)
            return []
        return picked


def parse_date(value: str) -> dt.date | None:
    if not _DATE.match(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None

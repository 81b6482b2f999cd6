"""Parameters from a request's path and query string, checked as the same values in bodies are
(rag.web.schemas), or validation_error naming the parameter."""

from __future__ import annotations

import pydantic
from multidict import MultiMapping
from pydantic import TypeAdapter

from rag.chat.sessions import HISTORY_LIMIT, PAGE_TURNS
from rag.errors import ValidationError
from rag.web.schemas import CONVERSATION_ID, USER_ID, describe

# A history page's cursor: a turn's seq, a whole number JavaScript reads exactly.
MAX_CURSOR = 2**53 - 1


def _checked(adapter: TypeAdapter[str], value: str, where: str) -> str:
    try:
        return adapter.validate_python(value, strict=True)
    except pydantic.ValidationError as exc:
        errors = [{**e, "loc": (where,)} for e in exc.errors(include_url=False)]
        raise ValidationError(describe(errors)) from exc


def user_id_param(value: str, where: str = "user_id") -> str:
    """A user id from a query string or path, checked as the ones in bodies are."""
    return _checked(USER_ID, value, where)


def conversation_param(query: MultiMapping[str]) -> str | None:
    """``?conversation_id=``: one of the user's conversations, checked as in bodies (none: the main one)."""
    given = query.getall("conversation_id", [])
    if not given:
        return None
    if len(given) > 1:
        raise ValidationError("conversation_id: given once")
    return _checked(CONVERSATION_ID, given[0], "conversation_id")


def session_page_params(query: MultiMapping[str]) -> tuple[int | None, int]:
    """GET /v1/sessions/{user_id}'s ``before`` (a turn's seq; none: the latest page) and ``limit``
    (1 to HISTORY_LIMIT turns, PAGE_TURNS by default), or validation_error naming the parameter."""
    before = _whole_number(query, "before", 0, MAX_CURSOR, "a turn's seq (the page's `before`)")
    limit = _whole_number(query, "limit", 1, HISTORY_LIMIT, "a number of turns")
    return before, PAGE_TURNS if limit is None else limit


def _whole_number(query: MultiMapping[str], name: str, low: int, high: int, what: str) -> int | None:
    given = query.getall(name, [])
    if not given:
        return None
    rule = f"{name}: {what}, a whole number from {low} to {high}"
    if len(given) > 1:
        raise ValidationError(f"{rule}, given once")
    value = given[0]
    # ASCII digits only (str.isdigit takes "²" and "٣"), and few enough that int() is instant.
    if (
        not (value.isascii() and value.isdigit())
        or len(value) > len(str(high))
        or not low <= int(value) <= high
    ):
        raise ValidationError(f"{rule}; got {value[:32]!r}")
    return int(value)

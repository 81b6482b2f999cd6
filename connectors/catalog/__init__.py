"""The tool catalogue: each tool is one declaration, a module here holding ``SPEC`` (a ToolSpec).

Everything else reads a tool from here: the tool runner and its parameter validation, ``/v1/tools`` and
the OpenAPI document, the router (its entry) and the LLM classifier (the description), self-ingestion
(the result model and freshness), recall questions and the answer's labels. A tool declared outside
this package is added with ``register``.
"""

from __future__ import annotations

from connectors.catalog import (  # noqa: E402  (the declarations import ToolSpec from spec)
    activity_search,
    cheapest_dates,
    flight_inspiration,
    flight_search,
    hotel_search,
    location_search,
    weather_forecast,
)
from connectors.catalog.spec import ToolSpec

__all__ = ["TOOLS", "ToolSpec", "register", "spec_of_kind", "unregister"]

TOOLS: dict[str, ToolSpec] = {
    m.SPEC.name: m.SPEC
    for m in (
        flight_search,
        hotel_search,
        activity_search,
        location_search,
        flight_inspiration,
        cheapest_dates,
        weather_forecast,
    )
}


def register(spec: ToolSpec) -> ToolSpec:
    """Add a tool declared outside this package; a second, different declaration of a name is an error."""
    known = TOOLS.get(spec.name)
    if known is not None and known != spec:
        raise ValueError(f"tool {spec.name!r} is already declared")
    if any(s.kind == spec.kind and s.name != spec.name for s in TOOLS.values()):
        raise ValueError(f"tool {spec.name!r}: result kind {spec.kind!r} belongs to another tool")
    TOOLS[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    TOOLS.pop(name, None)


def spec_of_kind(kind: str) -> ToolSpec | None:
    """The tool whose results are of ``kind``."""
    return next((s for s in TOOLS.values() if s.kind == kind), None)

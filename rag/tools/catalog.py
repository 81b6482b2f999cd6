"""The tool catalogue: a value built once from declarations (one module a tool, each holding ``SPEC``).

Everything else is handed the catalogue: the tool runner (the parameter models), ``/v1/tools`` and the
OpenAPI document, the router (its entries) and the LLM classifier (the descriptions), self-ingestion
(the result models and freshness), recall questions, the answer's labels and the dialogue (what each
tool needs from a conversation). ``create_app`` builds it (``ToolCatalogue.builtin()``, or one a caller
passes with tools of its own) and stores it under an AppKey; nothing registers into a global.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from connectors.params import ToolParams
from rag.tools import (
    activity_search,
    cheapest_dates,
    flight_inspiration,
    flight_search,
    hotel_search,
    location_search,
    weather_forecast,
)
from rag.tools.spec import ToolSpec

BUILTIN: tuple[ToolSpec, ...] = (
    flight_search.SPEC,
    hotel_search.SPEC,
    activity_search.SPEC,
    location_search.SPEC,
    flight_inspiration.SPEC,
    cheapest_dates.SPEC,
    weather_forecast.SPEC,
)


class ToolCatalogue(Mapping[str, ToolSpec]):
    """Tool name -> declaration, checked when built: unique names and result kinds, and each
    declaration against its parameter model (``ToolSpec.check``)."""

    def __init__(self, specs: Iterable[ToolSpec]) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            if spec.name in self._specs:
                raise ValueError(f"tool {spec.name!r} is declared twice")
            other = self.of_kind(spec.kind)
            if other is not None:
                raise ValueError(f"tool {spec.name!r}: result kind {spec.kind!r} belongs to {other.name}")
            spec.check()
            self._specs[spec.name] = spec

    @classmethod
    def builtin(cls, *extra: ToolSpec) -> ToolCatalogue:
        """The built-in tools, and ``extra`` ones declared elsewhere."""
        return cls([*BUILTIN, *extra])

    def __getitem__(self, name: str) -> ToolSpec:
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    # One catalogue is one value built once: equal to itself only, so it can key a cache.
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def of_kind(self, kind: str) -> ToolSpec | None:
        """The tool whose results are of ``kind``."""
        return next((s for s in self._specs.values() if s.kind == kind), None)

    def result_label(self, kind: str, lang: str) -> str:
        """One result of ``kind`` as a Sources line names it ("flight offer"); the kind itself if unknown."""
        spec = self.of_kind(kind)
        return spec.result_label(lang) if spec else kind.replace("_", " ")

    def label(self, name: str, lang: str) -> str:
        """A tool's results as said to a traveller ("flights", "vuelos"); the tool's name if unknown."""
        spec = self._specs.get(name)
        return spec.label(lang) if spec else name.replace("_", " ")

    def nouns(self) -> dict[str, str]:
        """Word -> tool, for the words that name a tool in a short follow-up, in every language."""
        return {w: name for name, spec in self._specs.items() for words in spec.nouns.values() for w in words}

    def describe(self, providers: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The tools as /v1/tools and ``wayfarer tools list`` show them: each declaration's name,
        description and parameter schema, with what ``providers`` says of it (the provider now, why,
        and every provider that could serve it)."""
        return [
            {
                "name": name,
                "description": spec.description,
                "parameters": spec.params.model_json_schema(),
                **providers.get(name, {}),
            }
            for name, spec in self._specs.items()
        ]

    def params_models(self) -> dict[str, type[ToolParams]]:
        """Tool name -> parameter model: what the tool runner validates calls with."""
        return {name: spec.params for name, spec in self._specs.items()}

    def descriptions(self) -> dict[str, str]:
        return {name: spec.description for name, spec in self._specs.items()}

"""The provider seam: a provider serves some tools and returns normalized results under its terms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from connectors.models import Result
from connectors.params import ToolParams


@dataclass(frozen=True, slots=True)
class Terms:
    """What a provider's terms allow Wayfarer to do with its results, and what they ask of an answer.

    ``store``: whether results may be written into the index at all (self-ingestion); ``max_age``:
    seconds a stored result may be kept and answered from (it shortens the tool's freshness; None: the
    tool's freshness decides); ``attribution``: the words every answer and source line built on the
    results must carry.
    """

    store: bool = True
    max_age: int | None = None
    attribution: str | None = None


class Provider(Protocol):
    """A travel data provider. A second provider for a tool is a new module implementing this."""

    @property
    def name(self) -> str: ...

    @property
    def sandbox(self) -> bool:
        """True when the provider's data is synthetic (the offline sandbox)."""
        ...

    @property
    def tools(self) -> frozenset[str]: ...

    @property
    def terms(self) -> Terms:
        """What may be stored of the results, for how long, and the attribution they need."""
        ...

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        """Validated ``params`` in, at most ``limit`` results out, best first; raises ProviderError."""
        ...

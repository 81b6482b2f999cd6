"""The provider seam: a provider serves some tools and returns normalized results."""

from __future__ import annotations

from typing import Protocol

from connectors.models import Result
from connectors.params import ToolParams


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

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        """Validated ``params`` in, at most ``limit`` results out, best first; raises ProviderError."""
        ...

"""What the dialogue knows of the tools (``ToolSpecs``) and the requests it weighs (``Request``). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rag.routing.config import ToolRoute
from rag.tools.catalog import ToolCatalogue


@dataclass(frozen=True, slots=True)
class ToolSpecs:
    """What the dialogue needs to know of the tools: their routes (required parameters, slots, as the
    routing configuration may override them) and their declarations (what each takes from the trip,
    how far ahead its results reach, its words)."""

    routes: Mapping[str, ToolRoute]
    declared: ToolCatalogue


Request = tuple[str, dict[str, Any], list[str], float, str]  # name, params, assumed, confidence, via

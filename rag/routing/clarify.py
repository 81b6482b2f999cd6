"""What the router asks back when a tool lacks parameters (``clarify``): unknown and ambiguous places
by name first, then each tool's missing parameters; and how a parameter (``ask_phrase``) or a
candidate place (``place_option``, the places package's) is named in that question. The dialogue's
questions use the same."""

from __future__ import annotations

from collections.abc import Mapping

from connectors.places import place_option
from rag.i18n import join_list, message
from rag.routing.config import RoutingConfig, ToolRoute
from rag.routing.extracted import Slots
from rag.routing.slots import PLACE_SLOTS, place_mention
from rag.tools.catalog import ToolCatalogue
from rag.tools.spec import ToolSpec

__all__ = ["ask_phrase", "clarify", "place_option"]


def clarify(
    config: RoutingConfig,
    tools: ToolCatalogue,
    missing: Mapping[str, list[str]],
    slots: Slots | None,
    lang: str = "en",
) -> str | None:
    """One question naming everything missing: unknown and ambiguous places by name first, then
    each tool's missing parameters ("For flights, tell me where you are flying from ...")."""
    if not missing:
        return None
    parts: list[str] = []
    named: set[str] = set()
    for name, params in missing.items():
        route = config.tools[name]
        asks = []
        for p in params:
            if route.params.get(p) in PLACE_SLOTS and slots is not None:
                mention = place_mention(slots, route.params[p])
                if mention is not None and mention.text in slots.ambiguous_places:
                    if mention.text not in named:
                        named.add(mention.text)
                        options = [place_option(o) for o in slots.ambiguous_places[mention.text]]
                        parts.append(
                            message(
                                lang,
                                "ambiguous_place",
                                name=mention.text,
                                options=join_list(lang, options),
                            )
                        )
                    continue
                unknown = next((u for u in slots.unknown_places if u not in named), None)
                if unknown is not None and mention is None:
                    named.add(unknown)
                    parts.append(message(lang, "unknown_place", name=unknown))
                    continue
                if mention is None and any(u in named for u in slots.unknown_places):
                    continue  # the question about the unknown place covers it
            asks.append(ask_phrase(lang, tools.get(name), p, route))
        if asks:
            parts.append(
                message(lang, "clarify_tool", what=tools.label(name, lang), asks=join_list(lang, asks))
            )
    return " ".join(parts) or None


def ask_phrase(lang: str, spec: ToolSpec | None, param: str, route: ToolRoute) -> str:
    """How to ask for a tool's parameter in ``lang``: its declaration's question in that language, else
    the routing entry's (English)."""
    asked = spec.asks.get(lang, {}).get(param) if spec else None
    if asked:
        return asked
    return route.ask.get(param) or (spec.ask("en", param) if spec else param.replace("_", " "))

"""Build the router from settings: the YAML configuration, the model, and the LLM classifier if configured."""

from __future__ import annotations

import asyncio
from typing import Any

from connectors.places import LocationCatalogue
from rag.embedding.base import Embedder
from rag.routing.config import load_config
from rag.routing.router import IntentClassifier, Router
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue


async def build_router(
    settings: Settings,
    embedder: Embedder,
    catalogue: LocationCatalogue,
    tools: ToolCatalogue,
    llm_client: Any | None = None,
) -> Router:
    config = await asyncio.to_thread(load_config, settings.routing.config, tools)

    async def embed(texts: list[str]) -> list[list[float]]:
        # One query each: concurrent messages share model calls through the micro-batcher.
        return list(await asyncio.gather(*(embedder.embed_query(t) for t in texts)))

    classifier: IntentClassifier | None = None
    if llm_client is not None and settings.llm.model:
        from rag.routing.llm import LLMIntentClassifier

        classifier = LLMIntentClassifier(
            llm_client,
            settings.llm.model,
            config.llm_prompt,
            {
                name: (tools[name].description, tools[name].params.model_json_schema())
                for name in config.tools
            },
            today=settings.today,
            timeout=settings.routing.llm_timeout_seconds,
            mode=settings.routing.llm_mode,
            max_tokens=settings.llm.routing_max_tokens,
        )
    return await Router.create(
        config,
        catalogue,
        tools,
        embed,
        today=settings.today,
        date_order=settings.routing.date_order,
        classifier=classifier,
    )

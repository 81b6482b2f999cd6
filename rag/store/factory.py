"""Map settings to a vector store; heavy imports load only for the chosen backend."""

from __future__ import annotations

from rag.settings import Settings
from rag.store.base import VectorStore


def create_store(
    settings: Settings, dimension: int, collection: str | None = None, *, generation: bool = False
) -> VectorStore:
    """The serving collection (through its alias or pointer file), or with ``generation`` a new one by that name."""
    name = collection or settings.index.collection
    if settings.index.url:
        from rag.store.qdrant import QdrantStore

        api_key = settings.index.api_key.get_secret_value() if settings.index.api_key else None
        return QdrantStore(
            name,
            dimension,
            settings.index.rrf_k,
            settings.index.prefetch_limit,
            url=settings.index.url,
            api_key=api_key,
            timeout=settings.index.timeout_seconds,
            generation=generation,
        )
    from rag.store.edge import EdgeStore, current_directory

    directory = name if generation else current_directory(settings.index_path, name)
    return EdgeStore(
        settings.index_path,
        directory,
        dimension,
        settings.index.rrf_k,
        settings.index.prefetch_limit,
        search_threads=settings.index.search_threads,
        graph_threshold_kb=settings.index.graph_threshold_kb,
    )

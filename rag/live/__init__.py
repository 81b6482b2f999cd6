"""Self-ingestion: tool results back into the index, deduplicated, fresh, scoped per user and recallable."""

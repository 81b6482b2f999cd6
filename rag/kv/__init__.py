"""The key-value store: deduplication, sessions and job locks (SQLite or Redis)."""

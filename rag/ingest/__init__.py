"""Ingestion: documents to chunks to points, deduplicated by content hash."""

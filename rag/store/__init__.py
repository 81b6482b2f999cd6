"""The vector index: embedded Qdrant Edge or a Qdrant server, behind one Protocol."""

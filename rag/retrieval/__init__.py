"""Search over the index: query embedding, hybrid retrieval, pooling chunks into documents."""

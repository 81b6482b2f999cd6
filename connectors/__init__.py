"""Travel tools: provider connectors behind one interface, and an offline sandbox (connectors.sandbox)."""

"""The travel chat: sessions and trip state, the per-message pipeline, and answer composition."""

"""How much one caller may ask: sliding-window rate limits kept in the KV store (window.py), the
client address a limit counts (address.py), and the limits of each kind of call (callers.py)."""

"""Slot tagging: which words of a message are a trip's places, dates and counts, read by a CRF fitted on
public dialogue data (tagger.py; its features: features.py, words.py, and the place catalogue's kinds of
names, connectors.places.kinds; its labels: labels.py).
It tags, it does not resolve: the router's extractor reads what the spans mean. Pure."""

"""Wayfarer: a self-learning travel knowledge service."""

__version__ = "0.1.0"

"""Other languages: which one a message is in, and Wayfarer's fixed phrases in each.

detect_language(text) -> "en" | "es" | "fr" | "de" | "pt" | "it"   ("en" when unsure)
message(lang, key, **kwargs) -> the phrase from messages.yaml (English for an unknown language)
"""

from __future__ import annotations

from rag.i18n.catalogue import DATE_WORDS_PATH, catalogue, join_list, message, placeholders
from rag.i18n.detect import LANGUAGE_NAMES, LANGUAGES, detect_language, load_detector

__all__ = [
    "DATE_WORDS_PATH",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "catalogue",
    "detect_language",
    "join_list",
    "load_detector",
    "message",
    "placeholders",
]

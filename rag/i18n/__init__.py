"""Other languages: which one a message is in, and Wayfarer's fixed phrases in each.

detect_language(text) -> "en" | "es" | "fr" | "de" | "pt" | "it"   ("en" when unsure)
message(lang, key, **kwargs) -> the phrase from messages.yaml (English for an unknown language)
"""

from __future__ import annotations

from rag.i18n.detect import LANGUAGE_NAMES, LANGUAGES, detect_language, load_detector
from rag.i18n.phrases import DATE_WORDS_PATH, join_list, message, phrases, placeholders

__all__ = [
    "DATE_WORDS_PATH",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "phrases",
    "detect_language",
    "join_list",
    "load_detector",
    "message",
    "placeholders",
]

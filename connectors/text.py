"""Text a provider wrote, made inert: one sanitiser for results and errors alike; and the one accent
folding. Pure (standard library).

What a provider sends is third-party text wherever it ends up: a hotel's name in a result, or the detail
of a 4xx in a tool's error, the chat answer, the stored history and an LLM's prompt. ``clean_text`` makes
either plain, single-spaced text: tags stripped (escaped ones too), control characters turned into spaces,
bidi and other format characters removed, and the length capped with an ellipsis. Markdown is left as
written: it is escaped where text is rendered (rag/chat/composer.py), since a bracket is not harmful in
a JSON field.

The service's rag/live/sanitize.py re-exports it for results; connectors use it for the errors they
build (connectors/http.py), so there is one implementation and connectors import nothing of the service.

``fold`` is the one accent folding (lower case, no accents) of the connectors and the service alike.
"""

from __future__ import annotations

import html
import re
import unicodedata

ERROR_CHARS = 300  # a provider error's message as the traveller may see it
DETAIL_CHARS = 240  # the provider's own detail inside it, so its code and our prefix fit
CODE_CHARS = 40  # a provider's error code

_TAG = re.compile(r"<[^>]{0,500}>")
_OPEN_TAG_AT_END = re.compile(r"<[^<>]{0,500}\Z")
_SPACE = re.compile(r"\s+")
_AS_SPACE = frozenset({"Cc", "Zl", "Zp"})  # controls, line and paragraph separators: words stay apart
_DROPPED = frozenset({"Cf", "Cs"})  # bidi overrides, zero-width and other format characters, lone surrogates
# However long a text is, only this many times ``max_chars`` is read: markup and spaces shrink as they are
# cleaned, but a megabyte of error body is not worth reading to show 300 characters of it.
_READ = 8


def clean_text(text: str, max_chars: int = 600) -> str:
    """Plain, single-spaced text: no tags, no control or format characters, at most ``max_chars``
    (cut with "…")."""
    cut = len(text) > max_chars * _READ
    if cut:
        text = _OPEN_TAG_AT_END.sub("", text[: max_chars * _READ])
    text = html.unescape(_TAG.sub(" ", text))
    text = _TAG.sub(" ", text)  # markup that was escaped once
    text = "".join(_plain(c) for c in text)
    text = _SPACE.sub(" ", text).strip()
    if not cut and len(text) <= max_chars:
        return text
    return text[: max_chars - 1].rstrip() + "…"


def fold(text: str) -> str:
    """Lower case without accents, for matching words whatever their case and marks: "Mañana" ->
    "manana", "März" -> "marz", "Straße" -> "strasse". The one accent folding of the service and the
    connectors (the gazetteer's name key adds punctuation and spacing to it).

    Case is folded with ``str.casefold`` (so "ß" is "ss"), the text decomposed (NFKD: "ﬁ" is "fi") and
    its combining marks dropped; spacing and punctuation are kept, so plain ASCII keeps its length.
    Decomposing can give capitals ("ᴬ" is "A"), so the case is folded again before the marks go: folding
    twice gives what folding once does."""
    folded = text.casefold()
    if folded.isascii():
        return folded
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", folded).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _plain(c: str) -> str:
    category = unicodedata.category(c)
    if category in _AS_SPACE:
        return " "
    return "" if category in _DROPPED else c

"""How the router cuts a message: slash commands, each with the rest of its segment, and the clauses
it embeds beside the whole message ("weather in Rome and a hotel there"). Pure."""

from __future__ import annotations

import re

_COMMAND = re.compile(r"(?:^|\s)(/[a-z_]+)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"\s*(?:[,;&+]|\band\b|\balso\b|\bplus\b|\bthen\b|\bas well as\b)\s*", re.IGNORECASE)
# The clauses embedded beside a message: at most this many, of at least two words each.
MAX_CLAUSES = 4


def split_commands(text: str) -> list[tuple[str, str]]:
    """Each slash command (lower-cased) with the text up to the next one, "and"/"then" trimmed."""
    found = list(_COMMAND.finditer(text))
    out = []
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        rest = re.sub(r"^\s*(and|then|,)\s+|\s+(and|then|,)\s*$", "", text[m.end() : end].strip())
        out.append((m.group(1).lower(), rest))
    return out


def clauses(text: str) -> list[str]:
    """The clauses of a message that joins several asks; none when it is one."""
    return (
        [c for c in _CLAUSE.split(text) if len(c.split()) >= 2][:MAX_CLAUSES] if _CLAUSE.search(text) else []
    )

"""Routing quality over labelled messages. Pure.

A message's prediction is the set of tools the router decided the message asks for: the tools it
would call plus the tools it holds back for missing parameters (both are the right intent).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any


def split(text: str, holdout_share: float = 0.4) -> str:
    """'fit' or 'holdout', stable per message text (a hash, not the file order)."""
    bucket = int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "holdout" if bucket < holdout_share else "fit"


def report(pairs: Sequence[tuple[set[str], set[str]]], tools: Iterable[str]) -> dict[str, Any]:
    """Per-tool precision/recall/F1, exact-match accuracy, and for messages that ask for no tool: the
    share left alone (their recall) and the share of messages left alone that asked for none (precision).
    """
    per_tool: dict[str, dict[str, float]] = {}
    for tool in tools:
        tp = sum(1 for exp, got in pairs if tool in exp and tool in got)
        fp = sum(1 for exp, got in pairs if tool not in exp and tool in got)
        fn = sum(1 for exp, got in pairs if tool in exp and tool not in got)
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        per_tool[tool] = {
            "precision": p,
            "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "support": tp + fn,
        }
    none = [(exp, got) for exp, got in pairs if not exp]
    left_alone = [(exp, got) for exp, got in pairs if not got]
    return {
        "messages": len(pairs),
        "exact_match": sum(1 for exp, got in pairs if exp == got) / len(pairs) if pairs else 0.0,
        "no_tool_left_alone": sum(1 for _, got in none if not got) / len(none) if none else 1.0,
        "no_tool_messages": len(none),
        "no_tool_precision": (
            sum(1 for exp, _ in left_alone if not exp) / len(left_alone) if left_alone else 1.0
        ),
        "per_tool": per_tool,
    }


def format_report(rep: dict[str, Any]) -> str:
    lines = [f"{'tool':20} {'prec':>6} {'recall':>6} {'f1':>6} {'n':>4}"]
    for tool, m in rep["per_tool"].items():
        lines.append(
            f"{tool:20} {m['precision']:6.3f} {m['recall']:6.3f} {m['f1']:6.3f} {int(m['support']):4d}"
        )
    lines.append(
        f"exact-match accuracy {rep['exact_match']:.3f} over {rep['messages']} messages; "
        f"no-tool messages left alone {rep['no_tool_left_alone']:.3f} of {rep['no_tool_messages']}; "
        f"no-tool precision {rep['no_tool_precision']:.3f}"
    )
    return "\n".join(lines)

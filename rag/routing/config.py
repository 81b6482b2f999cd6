"""The routing configuration: each declared tool's routing entry (rag/tools/) and routes.yaml
(the LLM prompt, retrieval and negative keywords, no-tool examples, and optional per-tool overrides),
loaded once at start and validated."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rag.errors import ConfigError
from rag.routing.slot_kinds import SlotKind
from rag.tools.catalog import ToolCatalogue
from rag.tools.spec import ToolSpec

DEFAULT_PATH = Path(__file__).with_name("routes.yaml")

# The slots a routing entry may name: the kinds of slot (rag.routing.slot_kinds), declared there once.
SLOTS = frozenset(k.value for k in SlotKind)
# What a message or the trip may say of a trip that changes which parameters a tool needs.
FLAGS = frozenset({"round_trip", "one_way"})


def _compile(patterns: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(p, re.IGNORECASE) for p in patterns]


_ESCAPE = re.compile(r"\\.")


class Rules:
    """A group of keyword rules, matched case-insensitively: whether any of them occurs in a message.

    Case-insensitive matching costs the regex engine about twice a case-sensitive search. So on an ASCII
    message, the rules written in lower case (outside their escapes, with no case-sensitive part) are
    searched case-sensitively in the message lower-cased: on ASCII text the two find the same (the
    engine's extra case equivalences, "ı" or "ſ", are all outside ASCII). Other messages and rules are
    searched as before."""

    def __init__(self, patterns: list[str]) -> None:
        self._any_case = _compile(patterns)
        self._lower = [re.compile(p) for p in patterns if _lower_case(p)]
        self._rest = [c for p, c in zip(patterns, self._any_case, strict=True) if not _lower_case(p)]

    def search(self, text: str, lowered: str | None = None) -> bool:
        """Whether a rule matches ``text``; ``lowered``: ``text.lower()`` when ``text`` is ASCII, else None."""
        if lowered is None:
            return any(p.search(text) for p in self._any_case)
        return any(p.search(lowered) for p in self._lower) or any(p.search(text) for p in self._rest)


def lowered_ascii(text: str) -> str | None:
    """What ``Rules.search`` is given besides the text: the text lower-cased when it is ASCII."""
    return text.lower() if text.isascii() else None


def _lower_case(pattern: str) -> bool:
    plain = _ESCAPE.sub("", pattern)
    return "(?-i" not in plain and plain == plain.lower()


class ToolRoute(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    negative: list[str] = Field(default_factory=list)
    examples: list[str] = Field(min_length=3)
    threshold: float = Field(0.6, ge=0, le=1)
    keyword_threshold: float = Field(0.35, ge=0, le=1)
    required: list[str] = Field(default_factory=list)
    suppresses: list[str] = Field(default_factory=list)
    absent: list[str] = Field(default_factory=list)
    slots_suffice: list[str] = Field(default_factory=list)
    params: dict[str, SlotKind]  # each parameter's slot (rag.routing.slot_kinds): a typo fails here
    ask: dict[str, str] = Field(default_factory=dict)
    # Parameters needed, or left out, when the trip is of a kind ("round_trip": return_date needed;
    # "one_way": no return_date even when the trip has an end).
    # Phrases that ask for this tool whatever the classifier says, when the slots they name are found
    # ("how would I get there from Manchester?" with an origin): {regex: [slots]}.
    fires: dict[str, list[str]] = Field(default_factory=dict)
    required_if: dict[str, list[str]] = Field(default_factory=dict)
    excluded_if: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("keywords", "negative")
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        _compile(v)
        return v

    @field_validator("fires")
    @classmethod
    def _fires(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        _compile(list(v))
        unknown = {s for slots in v.values() for s in slots} - SLOTS
        if unknown:
            raise ValueError(f"unknown extractor slots {sorted(unknown)}")
        return v

    @field_validator("absent", "slots_suffice")
    @classmethod
    def _absent_slots(cls, v: list[str]) -> list[str]:
        unknown = set(v) - SLOTS
        if unknown:
            raise ValueError(f"unknown extractor slots {sorted(unknown)}")
        return v

    @field_validator("params", mode="before")
    @classmethod
    def _slots(cls, v: dict[str, str]) -> dict[str, str]:
        unknown = set(v.values()) - SLOTS
        if unknown:
            raise ValueError(f"unknown extractor slots {sorted(unknown)}; known: {sorted(SLOTS)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ToolRoute:
        for flags in (self.required_if, self.excluded_if):
            unknown = set(flags) - FLAGS
            if unknown:
                raise ValueError(f"unknown trip kinds {sorted(unknown)}; known: {sorted(FLAGS)}")
            stray = [p for params in flags.values() for p in params if p not in self.params]
            if stray:
                raise ValueError(f"parameters {stray} have no slot in params")
        missing = [r for r in self.required if r not in self.params]
        if missing:
            raise ValueError(f"required parameters {missing} have no slot in params")
        unasked = [r for r in self.required if r not in self.ask]
        if unasked:
            raise ValueError(f"required parameters {unasked} have no question in ask")
        if self.command and not self.command.startswith("/"):
            raise ValueError("command must start with /")
        return self

    @property
    def keyword_rules(self) -> Rules:
        return Rules(self.keywords)

    @property
    def negative_rules(self) -> Rules:
        return Rules(self.negative)


class RoutingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    llm_prompt: str = "Decide which tools the message needs. Today is {today}. Tools:\n{tools}"
    retrieval_keywords: list[str] = Field(default_factory=list)
    negative_keywords: list[str] = Field(default_factory=list)
    tools: dict[str, ToolRoute] = Field(min_length=1)
    none_examples: list[str] = Field(min_length=3)

    @field_validator("retrieval_keywords", "negative_keywords")
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        _compile(v)
        return v

    @model_validator(mode="after")
    def _known_suppressed(self) -> RoutingConfig:
        for name, t in self.tools.items():
            unknown = set(t.suppresses) - set(self.tools)
            if unknown:
                raise ValueError(f"{name}.suppresses names unknown tools {sorted(unknown)}")
        return self

    @model_validator(mode="after")
    def _unique_commands(self) -> RoutingConfig:
        commands = [t.command for t in self.tools.values() if t.command]
        if len(commands) != len(set(commands)):
            raise ValueError("two tools share a command")
        return self


def load_config(path: Path = DEFAULT_PATH, tools: Mapping[str, ToolSpec] | None = None) -> RoutingConfig:
    """Read and validate the routing file with the declared tools' entries (``tools``: the built-in
    catalogue by default). The file's optional ``tools:`` section overrides keys of a declared tool's
    entry (thresholds, keywords, ...); every error names the file and what is wrong."""
    declared = tools if tools is not None else ToolCatalogue.builtin()
    try:
        raw: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"routing config {path}: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("tools") or {}, dict):
        raise ConfigError(f"routing config {path}: a mapping with an optional tools: mapping is expected")
    overrides: dict[str, Any] = raw.pop("tools", None) or {}
    unknown = set(overrides) - set(declared)
    if unknown:
        raise ConfigError(f"routing config {path}: no such tools {sorted(unknown)} (declare them first)")
    if any(not isinstance(o, dict) or "description" in o for o in overrides.values()):
        raise ConfigError(
            f"routing config {path}: a tool's override is a mapping without description "
            "(the description is declared with the tool)"
        )
    raw["tools"] = {name: {**spec.routing, **overrides.get(name, {})} for name, spec in declared.items()}
    try:
        return RoutingConfig.model_validate(raw)
    except (ValidationError, re.error) as exc:
        raise ConfigError(f"routing config {path}: {exc}") from exc

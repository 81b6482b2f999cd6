"""The router: for one message, whether to search documents, which tools to call, with which parameters.

Layers, in order of authority:
1. Commands (``/flights LON PAR 2027-05-05``) override everything.
2. Negative keyword rules (population, history, definitions, "what did you find", and per tool, e.g.
   climate for the weather tool) veto tools: such questions are answered from knowledge.
3. A tool fires when the tool classifier's calibrated probability (rag.routing.classifier, fitted on
   public intent datasets and our own messages) reaches the tool's fitted threshold, or a lower one when
   one of its keywords matched. A tool the classifier was not fitted on (a new one in routes.yaml) uses
   its examples instead: the mean cosine of the message and its clauses to its nearest examples against
   the tool's ``threshold`` and ``keyword_threshold``. A place name alone never fires a tool: it
   matches no keyword and scores low.
4. An LLM classifier, when configured, decides the tools instead of layer 3 (rag.routing.llm); on a
   timeout or a bad reply the layers above decide.
Parameters come from the deterministic extractor; a tool whose required parameters are missing is
reported in ``missing`` with a clarifying question, never called with guesses. A place the catalogue
does not know ("Zzyzx") or one several comparable places share ("Springfield") is asked about by name.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from connectors.locations import LocationCatalogue
from rag.i18n import detect_language, join_list, message
from rag.routing.classifier import DEFAULT_PATH as CLASSIFIER_PATH
from rag.routing.classifier import Classification, ToolClassifier
from rag.routing.config import RoutingConfig, ToolRoute, _compile
from rag.routing.dates import DateOrder
from rag.routing.extract import Slots, extract
from rag.routing.semantic import NONE, SemanticRouter
from rag.routing.slots import PLACE_SLOTS, build_params, place_mention, positional, slot_value
from rag.tagging.tagger import MODEL_PATH as TAGGER_PATH
from rag.tagging.tagger import SlotTagger
from rag.tools.catalog import ToolCatalogue
from rag.tools.spec import ToolSpec

logger = logging.getLogger(__name__)

Embed = Callable[[list[str]], Awaitable[list[list[float]]]]
_COMMAND = re.compile(r"(?:^|\s)(/[a-z_]+)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"\s*(?:[,;&+]|\band\b|\balso\b|\bplus\b|\bthen\b|\bas well as\b)\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ToolChoice:
    name: str
    params: dict[str, Any]
    confidence: float
    via: str  # command, keyword, semantic or llm


@dataclass
class RouteDecision:
    use_rag: bool
    tools: list[ToolChoice] = field(default_factory=list)
    missing: dict[str, list[str]] = field(default_factory=dict)
    clarify: str | None = None
    slots: Slots | None = None
    # Parameters found so far for the tools in ``missing`` (a conversation's trip state may complete them).
    partial: dict[str, dict[str, Any]] = field(default_factory=dict)
    unknown_places: list[str] = field(default_factory=list)  # place-like names nothing matched
    lang: str = "en"  # the message's language, for the questions asked back
    # How each tool in ``tools`` and ``missing`` was chosen (command, keyword, semantic, llm), and the
    # tools whose own words the message holds: a tool named outright, not only scored.
    vias: dict[str, str] = field(default_factory=dict)
    keywords: set[str] = field(default_factory=set)

    @property
    def intended(self) -> set[str]:
        """Every tool the message asks for: those to call and those waiting for parameters."""
        return {t.name for t in self.tools} | set(self.missing)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "use_rag": self.use_rag,
            "tools": [
                {"name": t.name, "params": t.params, "confidence": round(t.confidence, 4), "via": t.via}
                for t in self.tools
            ],
            "missing": self.missing,
        }
        if self.clarify:
            out["clarify"] = self.clarify
        if self.unknown_places:
            out["unknown_places"] = self.unknown_places
        return out


@dataclass
class Analysis:
    """Everything the layers observed about a message; ``decide`` turns it into tools (pure)."""

    text: str
    slots: Slots
    commands: list[tuple[str, str]]  # (command, rest of its segment)
    keyword_hits: set[str]
    negative: bool
    tool_negative: set[str]
    retrieval: bool
    scores: dict[str, float]
    # An explicit ask ("find me", "book", "busca", "je cherche") or a message of a few words: with a
    # tool's keyword, that is the tool asked for, even when its examples score low.
    request: bool = False
    asked: bool = False  # the explicit ask alone, not only a short message
    lang: str = "en"  # the message's language (its dates are read in it)
    # The tool classifier's probabilities and thresholds (None when no classifier is loaded).
    classification: Classification | None = None


# Asking for something, in our six languages; short messages ("weather?", "hotel in Nairobi") too.
_REQUEST = re.compile(
    r"\b(find|book|search|look(ing)? for|get me|show me|(need|want) (a|an|some|to book|to find)|reserve|"
    r"busca|buscar|encuentra|reserva|reservar|quiero|necesito|cherche|trouve|réserve|je veux|"
    r"such|finde|buche|brauche|möchte|procura|quero|preciso|cerca|trova|prenota|voglio|vorrei)\b",
    re.IGNORECASE,
)
SHORT_REQUEST_WORDS = 6
# A keyword and one of the tool's details fire it when the classifier gives it at least this much and
# this many times what it gives none.
KEYWORD_LEANING = 0.5
LEANING_RATIO = 5.0


class IntentClassifier(Protocol):
    async def classify(
        self, message: str, today: dt.date | None = None, context: str | None = None
    ) -> dict[str, dict[str, Any]] | None:
        """Tool name -> arguments, or None when the classifier could not answer (fall back).
        ``context``: the conversation's state, as rag.dialogue describes it."""
        ...


def decide(a: Analysis, config: RoutingConfig, margin: float = -1.0) -> dict[str, tuple[float, str]]:
    """Tools to fire, with confidence and the layer that fired them, from an analysis. Pure."""
    chosen: dict[str, tuple[float, str]] = {}
    if a.negative:
        return chosen
    none = a.scores.get(NONE, 0.0)
    c = a.classification
    # The classifier is sure the message asks for no tool ("add this song to my road trip playlist"):
    # a keyword with complete parameters or an explicit ask is not enough then.
    vetoed = c is not None and c.vetoed
    for name, route in config.tools.items():
        if name in a.tool_negative or any(slot_value(a.slots, s) is not None for s in route.absent):
            continue
        score = a.scores.get(name, 0.0)
        if any(
            re.search(p, a.text, re.IGNORECASE) and all(slot_value(a.slots, s) is not None for s in slots)
            for p, slots in route.fires.items()
        ):
            chosen[name] = (score, "keyword")  # asked for in so many words
            continue
        keyword = name in a.keyword_hits
        known = c is not None and c.knows(name)
        if c is not None and known:
            # The classifier's calibrated probability replaces the examples' score for its tools.
            score = c.probabilities[name]
            if score >= c.thresholds.fire[name]:
                chosen[name] = (score, "semantic")
                continue
            if keyword and score >= c.thresholds.keyword[name]:
                chosen[name] = (score, "keyword")
                continue
        else:
            if score - none < margin:
                continue
            if score >= route.threshold:
                chosen[name] = (score, "semantic")
                continue
            if keyword and score >= route.keyword_threshold:
                chosen[name] = (score, "keyword")
                continue
        if not keyword or vetoed:
            continue
        params = build_params(route, a.slots, {})
        if route.required and all(params.get(p) is not None for p in route.required):
            chosen[name] = (score, "keyword")  # a complete request: the keyword and everything it needs
        elif a.request and not known and score >= none - 0.1:
            # "find me a hotel in Nairobi": asked for by name.
            chosen[name] = (score, "keyword")
        elif a.asked and known and c is not None and score >= c.probabilities.get(NONE, 1.0):
            # "get me a plane ticket to austin": the keyword, an ask, and the classifier leaning
            # more to this tool than to none.
            chosen[name] = (score, "keyword")
        elif (
            known
            and c is not None
            and score >= KEYWORD_LEANING
            and score >= LEANING_RATIO * c.probabilities.get(NONE, 1.0)
            and any(params.get(p) is not None for p in route.required)
        ):
            # "hotel en Madrid el 31 de febrero": its keyword, one of its details, and the classifier
            # leaning far more to it than to none, though below its keyword threshold.
            chosen[name] = (score, "keyword")
    if not chosen and not vetoed:
        # "lon par 5 may": nothing else claimed the message, and its slots alone say what it is.
        for name, route in config.tools.items():
            if (
                route.slots_suffice
                and not a.retrieval  # "how do I get from Narita to Shinjuku" is a question
                and name not in a.tool_negative
                and all(slot_value(a.slots, s) is not None for s in route.slots_suffice)
            ):
                chosen[name] = (a.scores.get(name, 0.0), "keyword")
    for name in list(chosen):
        for general in config.tools[name].suppresses:
            chosen.pop(general, None)
    return chosen


class Router:
    def __init__(
        self,
        config: RoutingConfig,
        catalogue: LocationCatalogue,
        tools: ToolCatalogue,
        embed: Embed,
        semantic: SemanticRouter,
        *,
        today: Callable[[], dt.date],
        date_order: DateOrder = "MDY",
        margin: float = -1.0,
        classifier: IntentClassifier | None = None,
        tagger: SlotTagger | None = None,
    ) -> None:
        self.tagger = tagger
        self.config = config
        self.catalogue = catalogue
        self.tools = tools
        self._embed = embed
        self.semantic = semantic
        self._today = today
        self._order = date_order
        self.margin = margin
        self._classifier = classifier
        self._keywords = {name: t.keyword_patterns for name, t in config.tools.items()}
        self._tool_negative = {name: t.negative_patterns for name, t in config.tools.items()}
        self._negative = _compile(config.negative_keywords)
        self._retrieval = _compile(config.retrieval_keywords)
        self._commands = {t.command.lower(): name for name, t in config.tools.items() if t.command}

    @classmethod
    async def create(
        cls,
        config: RoutingConfig,
        catalogue: LocationCatalogue,
        tools: ToolCatalogue,
        embed: Embed,
        *,
        classifier_path: Path | None = CLASSIFIER_PATH,
        tagger_path: Path | None = TAGGER_PATH,
        **kwargs: Any,
    ) -> Router:
        """Embed every route's examples once and load the tool classifier (None: examples only).

        The classifier is used only if this router embeds its probe sentences as it was fitted: with
        another embedding model (WAYFARER_EMBEDDING__MODEL) its weights mean nothing, and the examples
        decide alone.
        """
        routes: dict[str, list[str]] = {name: t.examples for name, t in config.tools.items()}
        routes[NONE] = config.none_examples
        classifier = None
        if classifier_path is not None:
            classifier = await asyncio.to_thread(ToolClassifier.load, classifier_path)
        if tagger_path is not None and "tagger" not in kwargs:
            kwargs["tagger"] = await asyncio.to_thread(SlotTagger.load, tagger_path)
        probes = classifier.probe_texts if classifier is not None else []
        vectors = await embed([e for examples in routes.values() for e in examples] + probes)
        offset = 0
        embedded: dict[str, list[list[float]]] = {}
        for name, examples in routes.items():
            embedded[name] = vectors[offset : offset + len(examples)]
            offset += len(examples)
        if classifier is not None and not (
            len(vectors[0]) == classifier.dimension and classifier.agrees_with(vectors[offset:])
        ):
            logger.warning(
                "the tool classifier %s was fitted on another embedding model (%s); routing by examples",
                classifier_path,
                classifier.meta.get("embedder", "unknown"),
            )
            classifier = None
        return cls(config, catalogue, tools, embed, SemanticRouter(embedded, classifier=classifier), **kwargs)

    async def analyse(
        self,
        message: str,
        vector: list[float] | None = None,
        country: str | None = None,
        today: dt.date | None = None,
        asked: Sequence[str] = (),
    ) -> Analysis:
        """``country``: the conversation's country, which settles place names several places share;
        ``today``: the traveller's date (their time zone's), else the router's own; ``asked``: the slots
        the assistant just asked for ("origin"), which the slot tagger reads the reply with."""
        text = " ".join(message.split())
        lang = detect_language(text)
        tagged = (
            [(s.label, s.start, s.end) for s in self.tagger.tag(text, asked)]
            if self.tagger is not None
            else None
        )
        slots = extract(text, self.catalogue, today or self._today(), self._order, country, lang, tagged)
        commands = self._split_commands(text)
        clauses = [c for c in _CLAUSE.split(text) if len(c.split()) >= 2][:4] if _CLAUSE.search(text) else []
        to_embed = ([] if vector is not None else [text]) + clauses
        vectors = ([vector] if vector is not None else []) + (await self._embed(to_embed) if to_embed else [])
        return Analysis(
            text=text,
            slots=slots,
            commands=commands,
            keyword_hits={n for n, ps in self._keywords.items() if any(p.search(text) for p in ps)},
            negative=any(p.search(text) for p in self._negative),
            tool_negative={n for n, ps in self._tool_negative.items() if any(p.search(text) for p in ps)},
            retrieval=any(p.search(text) for p in self._retrieval),
            request=bool(_REQUEST.search(text)) or len(text.split()) <= SHORT_REQUEST_WORDS,
            asked=bool(_REQUEST.search(text)),
            lang=lang,
            scores=self.semantic.scores(vectors),
            classification=self.semantic.classify(vectors),
        )

    async def route(
        self,
        message: str,
        vector: list[float] | None = None,
        *,
        country: str | None = None,
        today: dt.date | None = None,
        context: str | None = None,
        asked: Sequence[str] = (),
    ) -> RouteDecision:
        """``country``: the conversation's country (its trip's destination), for shared place names;
        ``today``: the traveller's date, in their time zone ("this weekend" is theirs), else the router's;
        ``context``: the conversation's state for the LLM classifier, when one is configured."""
        today = today or self._today()
        classify = (
            asyncio.create_task(self._classifier.classify(message, today, context))
            if self._classifier is not None
            else None
        )
        a = await self.analyse(message, vector, country, today, asked)
        if a.commands:
            rest = " ".join(r for _, r in a.commands)
            lang = detect_language(rest) if len(rest.split()) >= 3 else "en"  # "/weather Mars" is not French
            if classify:
                classify.cancel()
            return self._route_commands(a, lang, today)
        lang = a.lang
        chosen = decide(a, self.config, self.margin)
        llm_args: dict[str, dict[str, Any]] = {}
        if classify is not None:
            answer = await classify
            if answer is not None:
                # The LLM decides which tools; negative rules still veto; the extractor's grounded values win.
                chosen = {
                    name: (max(a.scores.get(name, 0.0), 0.5), "llm")
                    for name in answer
                    if name in self.config.tools and not a.negative and name not in a.tool_negative
                }
                llm_args = answer
        decision = RouteDecision(
            use_rag=True,
            slots=a.slots,
            unknown_places=a.slots.unknown_places,
            lang=lang,
            keywords=set(a.keyword_hits) | {n for n, (_, via) in chosen.items() if via == "keyword"},
        )
        for name, (confidence, via) in chosen.items():
            route = self.config.tools[name]
            params = build_params(route, a.slots, llm_args.get(name, {}))
            self._place(decision, name, route, params, confidence, via)
        decision.clarify = self.clarify(decision.missing, a.slots, lang)
        return decision

    def _split_commands(self, text: str) -> list[tuple[str, str]]:
        found = list(_COMMAND.finditer(text))
        out = []
        for i, m in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(text)
            rest = re.sub(r"^\s*(and|then|,)\s+|\s+(and|then|,)\s*$", "", text[m.end() : end].strip())
            out.append((m.group(1).lower(), rest))
        return out

    def _route_commands(self, a: Analysis, lang: str, today: dt.date) -> RouteDecision:
        decision = RouteDecision(
            use_rag=False, slots=a.slots, unknown_places=a.slots.unknown_places, lang=lang
        )
        unknown = []
        for command, rest in a.commands:
            name = self._commands.get(command)
            if name is None:
                unknown.append(command)
                continue
            route = self.config.tools[name]
            slots = extract(rest, self.catalogue, today, self._order)
            params = build_params(route, slots, {})
            positional(route, rest, slots, params)
            self._place(decision, name, route, params, 1.0, "command")
        decision.clarify = self.clarify(decision.missing, a.slots, lang)
        if unknown:
            known = ", ".join(sorted(self._commands))
            note = message(lang, "unknown_command", commands=", ".join(unknown), known=known)
            decision.clarify = f"{note} {decision.clarify}" if decision.clarify else note
        return decision

    @staticmethod
    def _place(
        decision: RouteDecision,
        name: str,
        route: ToolRoute,
        params: dict[str, Any],
        confidence: float,
        via: str,
    ) -> None:
        decision.vias[name] = via
        missing = [p for p in route.required if params.get(p) in (None, "")]
        slots = decision.slots
        if slots is not None and slots.ambiguous_places:
            # "Springfield": which one is the traveller's to say, not ours to guess.
            for param, slot in route.params.items():
                mention = place_mention(slots, slot)
                if mention is not None and mention.text in slots.ambiguous_places:
                    params.pop(param, None)
                    if param in route.required and param not in missing:
                        missing.append(param)
        if missing:
            decision.missing[name] = missing
            decision.partial[name] = params
        else:
            decision.tools.append(ToolChoice(name, params, confidence, via))

    def clarify(self, missing: Mapping[str, list[str]], slots: Slots | None, lang: str = "en") -> str | None:
        """One question naming everything missing: unknown and ambiguous places by name first, then
        each tool's missing parameters ("For flights, tell me where you are flying from ...")."""
        if not missing:
            return None
        parts: list[str] = []
        named: set[str] = set()
        for name, params in missing.items():
            route = self.config.tools[name]
            asks = []
            for p in params:
                if route.params.get(p) in PLACE_SLOTS and slots is not None:
                    mention = place_mention(slots, route.params[p])
                    if mention is not None and mention.text in slots.ambiguous_places:
                        if mention.text not in named:
                            named.add(mention.text)
                            options = [place_option(o) for o in slots.ambiguous_places[mention.text]]
                            parts.append(
                                message(
                                    lang,
                                    "ambiguous_place",
                                    name=mention.text,
                                    options=join_list(lang, options),
                                )
                            )
                        continue
                    unknown = next((u for u in slots.unknown_places if u not in named), None)
                    if unknown is not None and mention is None:
                        named.add(unknown)
                        parts.append(message(lang, "unknown_place", name=unknown))
                        continue
                    if mention is None and any(u in named for u in slots.unknown_places):
                        continue  # the question about the unknown place covers it
                asks.append(ask_phrase(lang, self.tools.get(name), p, route))
            if asks:
                parts.append(
                    message(
                        lang, "clarify_tool", what=self.tools.label(name, lang), asks=join_list(lang, asks)
                    )
                )
        return " ".join(parts) or None


def ask_phrase(lang: str, spec: ToolSpec | None, param: str, route: ToolRoute) -> str:
    """How to ask for a tool's parameter in ``lang``: its declaration's question in that language, else
    the routing entry's (English)."""
    asked = spec.asks.get(lang, {}).get(param) if spec else None
    if asked:
        return asked
    return route.ask.get(param) or (spec.ask("en", param) if spec else param.replace("_", " "))


def place_option(place: Any) -> str:
    """How a candidate place is named when asking which one: "Springfield (USA, SGF)"."""
    from connectors import gazetteer

    country = gazetteer.load().countries.get(place.country_code)
    where = country.name if country else place.country_code
    return f"{place.city_name} ({where}, {place.code})"

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

The decision's types are in rag.routing.decision, the rule layers in rag.routing.layers, how a message
is cut into commands and clauses in rag.routing.clauses, and the question asked back in
rag.routing.clarify.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from connectors.places import LocationCatalogue
from rag.i18n import detect_language, message
from rag.routing.clarify import clarify
from rag.routing.classifier import DEFAULT_PATH as CLASSIFIER_PATH
from rag.routing.classifier import ToolClassifier
from rag.routing.clauses import clauses, split_commands
from rag.routing.config import RoutingConfig, Rules, ToolRoute, lowered_ascii
from rag.routing.dates import DateOrder
from rag.routing.decision import Analysis, IntentClassifier, RouteDecision, ToolChoice
from rag.routing.extract import extract
from rag.routing.layers import decide
from rag.routing.semantic import NONE, SemanticRouter
from rag.routing.slots import build_params, place_mention, positional
from rag.tagging.tagger import MODEL_PATH as TAGGER_PATH
from rag.tagging.tagger import SlotTagger
from rag.tools.catalog import ToolCatalogue

__all__ = ["IntentClassifier", "RouteDecision", "Router"]

logger = logging.getLogger(__name__)

Embed = Callable[[list[str]], Awaitable[list[list[float]]]]


# Asking for something, in our six languages; short messages ("weather?", "hotel in Nairobi") too.
_REQUEST = re.compile(
    r"\b(find|book|search|look(ing)? for|get me|show me|(need|want) (a|an|some|to book|to find)|reserve|"
    r"busca|buscar|encuentra|reserva|reservar|quiero|necesito|cherche|trouve|réserve|je veux|"
    r"such|finde|buche|brauche|möchte|procura|quero|preciso|cerca|trova|prenota|voglio|vorrei)\b",
    re.IGNORECASE,
)
SHORT_REQUEST_WORDS = 6


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
        self._keywords = {name: t.keyword_rules for name, t in config.tools.items()}
        self._tool_negative = {name: t.negative_rules for name, t in config.tools.items()}
        self._negative = Rules(config.negative_keywords)
        self._retrieval = Rules(config.retrieval_keywords)
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
        anchor: dt.date | None = None,
        lang: str | None = None,
        near: str | None = None,
    ) -> Analysis:
        """``country``: the conversation's country, which settles place names several places share;
        ``today``: the traveller's date (their time zone's), else the router's own; ``asked``: the slots
        the assistant just asked for ("origin"), which the slot tagger reads the reply with."""
        text = " ".join(message.split())
        lang = detect_language(text, default=lang or "en")
        tagged = (
            [(s.label, s.start, s.end) for s in self.tagger.tag(text, asked)]
            if self.tagger is not None
            else None
        )
        slots = extract(
            text,
            self.catalogue,
            today or self._today(),
            self._order,
            country,
            lang,
            tagged,
            anchor=anchor,
            near=near,
            asked=asked,
        )
        commands = split_commands(text)
        lowered = lowered_ascii(text)
        to_embed = ([] if vector is not None else [text]) + clauses(text)
        vectors = ([vector] if vector is not None else []) + (await self._embed(to_embed) if to_embed else [])
        return Analysis(
            text=text,
            slots=slots,
            commands=commands,
            keyword_hits={n for n, rules in self._keywords.items() if rules.search(text, lowered)},
            negative=self._negative.search(text, lowered),
            tool_negative={n for n, rules in self._tool_negative.items() if rules.search(text, lowered)},
            retrieval=self._retrieval.search(text, lowered),
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
        anchor: dt.date | None = None,
        lang: str | None = None,
        near: str | None = None,
    ) -> RouteDecision:
        """``country``: the conversation's country (its trip's destination), for shared place names;
        ``today``: the traveller's date, in their time zone ("this weekend" is theirs), else the router's;
        ``context``: the conversation's state for the LLM classifier, when one is configured;
        ``anchor``: the trip's first day, which a bare day ("make it the 22nd") is read next to;
        ``lang``: the conversation's language, for a message too short to say its own ("Lieber am 8.");
        ``near``: the IATA city code of the trip's place, whose districts a name may be ("Palermo")."""
        today = today or self._today()
        classify = (
            asyncio.create_task(self._classifier.classify(message, today, context))
            if self._classifier is not None
            else None
        )
        a = await self.analyse(message, vector, country, today, asked, anchor, lang, near)
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
        decision.clarify = clarify(self.config, self.tools, decision.missing, a.slots, lang)
        return decision

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
        decision.clarify = clarify(self.config, self.tools, decision.missing, a.slots, lang)
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

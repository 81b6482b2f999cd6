"""A tool and a provider added by declaration alone: the ToolSpec and the ProviderSpec below (this
module is the provider module, named in WAYFARER_CONNECTORS__PROVIDERS), and nothing else.

The running app then validates, calls, lists, documents, routes, answers, ingests, recalls and credits
the new tool with no other change, as the README's "adding a provider" section says.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from typing import Any, Literal

import pytest
from pydantic import Field

from connectors.base import Terms
from connectors.models import Result
from connectors.params import ToolParams
from connectors.providers import BuildContext, ProviderSpec
from rag.settings import Settings
from rag.tools.catalog import ToolCatalogue
from rag.tools.spec import ToolSpec
from rag.web import keys

# The tool: its parameters, its result, and its declaration.


class ExchangeRateParams(ToolParams):
    currency: str = Field(
        pattern=r"^[A-Z]{3}$", description="ISO 4217 code of the currency to price in euros"
    )


class ExchangeRate(Result):
    kind: Literal["exchange_rate"] = "exchange_rate"
    currency: str
    per_euro: float

    @property
    def identity(self) -> str:
        return f"fx:EUR{self.currency}"  # never the rate: the same pair seen twice is one result

    def render(self) -> str:
        return f"1 EUR buys {self.per_euro:.4f} {self.currency} (reference rate)."


SPEC = ToolSpec(
    name="exchange_rates",
    description="Reference exchange rate of a currency against the euro.",
    params=ExchangeRateParams,
    result=ExchangeRate,
    freshness=12 * 3600,
    labels={"en": "exchange rates", "es": "tipos de cambio"},
    result_labels={"en": "exchange rate", "es": "tipo de cambio"},
    recall=r"\bexchange rates?\b",
    routing={
        "command": "/fx",
        "args": ["currency"],
        "keywords": [r"\bexchange rates?\b"],
        "examples": ["euro to dollar exchange rate", "how many yen for a euro", "exchange rate for pounds"],
        "required": ["currency"],
        "params": {"currency": "currency"},
        "ask": {"currency": "which currency you want priced in euros"},
    },
)

# The provider: one class and its declaration (offline, so it needs no key and no sandbox).

RATES = {"USD": 1.0842, "JPY": 162.31, "GBP": 0.8561}


class ReferenceRatesConnector:
    name = "reference_rates"
    sandbox = False
    tools = frozenset({"exchange_rates"})
    terms = Terms(max_age=3600, attribution="Rates: Wayfarer test reference table")

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        assert isinstance(params, ExchangeRateParams)
        now = dt.datetime.now(dt.UTC)
        rate = RATES.get(params.currency)
        return (
            []
            if rate is None
            else [ExchangeRate(provider=self.name, fetched_at=now, currency=params.currency, per_euro=rate)]
        )


def _build(ctx: BuildContext) -> ReferenceRatesConnector:
    return ReferenceRatesConnector()


PROVIDER = ProviderSpec(
    name="reference_rates", tools=ReferenceRatesConnector.tools, build=_build, network=False
)


@pytest.fixture
async def app_client(aiohttp_client, make_settings: Callable[..., Settings], small_seed):  # type: ignore[no-untyped-def]
    from rag.web.app import create_app

    settings = make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_CONNECTORS__PROVIDERS=json.dumps({"exchange_rates": __name__}),
    )
    return await aiohttp_client(create_app(settings, tools=ToolCatalogue.builtin(SPEC)))


async def test_a_declared_tool_and_provider_work_end_to_end(app_client: Any) -> None:
    listed = {t["name"]: t for t in (await (await app_client.get("/v1/tools")).json())["tools"]}
    fx = listed["exchange_rates"]
    assert fx["provider"] == "reference_rates" and fx["description"] == SPEC.description
    assert fx["why"] == "named in WAYFARER_CONNECTORS__PROVIDERS" and fx["sandbox"] is False
    assert fx["parameters"]["properties"]["currency"]["pattern"] == "^[A-Z]{3}$"

    spec = await (await app_client.get("/openapi.json")).json()
    assert "/v1/tools/exchange_rates" in spec["paths"]

    resp = await app_client.post("/v1/tools/exchange_rates?user_id=ana", json={"currency": "JPY"})
    body = await resp.json()
    assert resp.status == 200, body
    assert [r["id"] for r in body["results"]] == ["fx:EURJPY"]
    assert body["attribution"] == "Rates: Wayfarer test reference table"
    bad = await app_client.post("/v1/tools/exchange_rates", json={"currency": "yen"})
    assert bad.status == 422 and (await bad.json())["error"]["code"] == "invalid_tool_params"

    chat = await app_client.post("/v1/chat", json={"user_id": "bo", "message": "/fx USD"})
    answer = await chat.json()
    assert [c["name"] for c in answer["tool_calls"]] == ["exchange_rates"], answer
    assert "1 EUR buys 1.0842 USD" in answer["text"]
    # The Sources line names the result with its declared label and carries the provider's attribution.
    sources_line = answer["text"].rsplit("\n", 1)[-1]
    assert sources_line.startswith("Sources: [1] exchange rate, reference\\_rates, fetched "), sources_line
    assert sources_line.endswith("Rates: Wayfarer test reference table")
    assert answer["sources"][0]["attribution"] == "Rates: Wayfarer test reference table"

    asked = await (await app_client.post("/v1/chat", json={"user_id": "bo", "message": "/fx"})).json()
    assert "which currency you want priced in euros" in asked["text"]

    await app_client.app[keys.TASKS].drain()
    recalled = await (
        await app_client.post(
            "/v1/chat", json={"user_id": "bo", "message": "what exchange rates did you find?"}
        )
    ).json()
    assert recalled["tool_calls"] == [] and recalled["sources"], recalled
    assert all(s["kind"] == "exchange_rate" for s in recalled["sources"])
    assert "1.0842 USD" in recalled["text"]


def test_a_declaration_that_contradicts_the_catalogue_is_refused() -> None:
    hotels = ToolCatalogue.builtin()["hotel_search"]
    with pytest.raises(ValueError, match="declared twice"):
        ToolCatalogue.builtin(ToolSpec(**{**_fields(hotels), "description": "something else"}))
    with pytest.raises(ValueError, match="belongs to hotel_search"):
        ToolCatalogue.builtin(ToolSpec(**{**_fields(hotels), "name": "hotel_search_2"}))
    with pytest.raises(ValueError, match="English"):
        ToolSpec(**{**_fields(SPEC), "labels": {"es": "tipos de cambio"}})


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"from_trip": frozenset({"currency", "when"})}, "from_trip names ['when']"),
        ({"from_trip": frozenset({"currency"}), "routing": {}}, "from_trip ['currency'] have no slot"),
        ({"asks": {"es": {"moneda": "qué moneda"}}}, "asks[es] names ['moneda']"),
        ({"horizon_days": 0}, "horizon_days must be positive"),
        ({"nouns": {"en": ("Rates",)}}, "nouns[en] are lowercase words"),
    ],
)
def test_what_a_tool_needs_from_a_conversation_is_checked_when_the_catalogue_is_built(
    change: dict[str, Any], says: str
) -> None:
    """A typo in a declaration fails at start, naming the tool, not in a conversation."""
    wrong = ToolSpec(**{**_fields(SPEC), **change})
    with pytest.raises(ValueError, match=f"tool exchange_rates: {re.escape(says)}"):
        ToolCatalogue.builtin(wrong)


def _fields(spec: ToolSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in ToolSpec.__dataclass_fields__}

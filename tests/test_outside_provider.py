"""A keyed provider declared outside the package works by its declaration alone: this module is the
provider module (named in WAYFARER_CONNECTORS__PROVIDERS), its ``ProviderSpec`` brings its own settings
model, and its key comes from ``WAYFARER_CONNECTORS__ACME_KEY`` with nothing else changed.

In ``auto`` the key switches the real provider on (without it the tool stays on the sandbox); in ``live``
the service starts with it. The provider's "real" API is a small aiohttp server that checks the key.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from pydantic import BaseModel, SecretStr

from connectors.base import Terms
from connectors.errors import ProviderAuthError
from connectors.models import Activity, Result
from connectors.params import ActivitySearchParams, ToolParams
from connectors.providers import BuildContext, ProviderSpec
from rag.settings import Settings

KEY = "acme-live-7f3q"
SANDBOX_KEY = "acme-sandbox"

# The provider: its settings, its connector and its declaration.


class AcmeSettings(BaseModel):
    """Read from WAYFARER_CONNECTORS__ACME_KEY and WAYFARER_CONNECTORS__ACME_BASE_URL."""

    acme_key: SecretStr | None = None
    acme_base_url: str = "https://api.acme.invalid"


class AcmeSightsConnector:
    name = "acme"
    tools = frozenset({"activity_search"})
    terms = Terms(attribution="Sights by Acme")

    def __init__(self, session: aiohttp.ClientSession, base_url: str, key: str, *, sandbox: bool) -> None:
        self._session, self._base, self._key, self.sandbox = session, base_url.rstrip("/"), key, sandbox

    async def call(self, tool: str, params: ToolParams, limit: int) -> list[Result]:
        assert isinstance(params, ActivitySearchParams)
        now = dt.datetime.now(dt.UTC)
        if self.sandbox:  # the offline sandbox does not speak Acme's dialect: one synthetic sight
            return [
                Activity(provider=self.name, sandbox=True, fetched_at=now, activity_id="s1", name="Sight")
            ]
        query = {"lat": str(params.latitude), "lon": str(params.longitude)}
        async with self._session.get(
            f"{self._base}/sights", params=query, headers={"X-Acme-Key": self._key}
        ) as resp:
            if resp.status == 401:
                raise ProviderAuthError("Acme refused the key")
            body = await resp.json()
        return [
            Activity(provider=self.name, sandbox=False, fetched_at=now, activity_id=s["id"], name=s["name"])
            for s in body["sights"][:limit]
        ]


def _build(ctx: BuildContext) -> AcmeSightsConnector:
    base, key = ctx.credentials("acme_key", "acme_base_url", SANDBOX_KEY)
    return AcmeSightsConnector(ctx.session, base, key, sandbox=ctx.sandbox)


PROVIDER = ProviderSpec(
    name="acme",
    tools=AcmeSightsConnector.tools,
    build=_build,
    keys=("acme_key",),
    settings=("acme_base_url",),
    config=AcmeSettings,
)

# Acme's API, as far as this provider uses it.


async def sights(request: web.Request) -> web.Response:
    if request.headers.get("X-Acme-Key") != KEY:
        return web.json_response({"error": "bad key"}, status=401)
    return web.json_response({"sights": [{"id": "a1", "name": "Acme Colosseum Walk"}]})


@pytest.fixture
async def acme(aiohttp_server: Callable[..., Any]) -> TestServer:
    app = web.Application()
    app.router.add_get("/sights", sights)
    server: TestServer = await aiohttp_server(app)
    return server


# The built-in providers' keys, so that real mode has one for every other tool (none is called).
BUILTIN_KEYS = {
    "WAYFARER_CONNECTORS__DUFFEL_TOKEN": "unused",
    "WAYFARER_CONNECTORS__LITEAPI_KEY": "unused",
    "WAYFARER_CONNECTORS__TRAVELPAYOUTS_TOKEN": "unused",
}


def settings_for(make_settings: Callable[..., Settings], small_seed: Any, **env: str) -> Settings:
    return make_settings(
        WAYFARER_INDEX__SEED_DIR=str(small_seed),
        WAYFARER_CONNECTORS__PROVIDERS=json.dumps({"activity_search": __name__}),
        **env,
    )


async def listed(client: Any) -> dict[str, Any]:
    tools = (await (await client.get("/v1/tools")).json())["tools"]
    return {t["name"]: t for t in tools}["activity_search"]


async def call_sights(client: Any) -> dict[str, Any]:
    resp = await client.post("/v1/tools/activity_search", json={"city": "Rome"})
    body: dict[str, Any] = await resp.json()
    assert resp.status == 200, body
    return body


@pytest.mark.parametrize("mode", ["auto", "real"])
async def test_an_outside_provider_gets_its_key_from_its_own_settings(
    aiohttp_client: Any, make_settings: Callable[..., Settings], small_seed: Any, acme: TestServer, mode: str
) -> None:
    from rag.web.app import create_app

    settings = settings_for(
        make_settings,
        small_seed,
        WAYFARER_CONNECTORS__MODE=mode,
        WAYFARER_CONNECTORS__ACME_KEY=KEY,
        WAYFARER_CONNECTORS__ACME_BASE_URL=str(acme.make_url("")),
        **(BUILTIN_KEYS if mode == "real" else {}),
    )
    assert KEY not in repr(settings)  # a key the settings do not declare is still a secret
    client = await aiohttp_client(create_app(settings))

    tool = await listed(client)
    assert tool["provider"] == "acme" and tool["sandbox"] is False, tool
    assert tool["why"] == "named in WAYFARER_CONNECTORS__PROVIDERS"
    acme_option = next(o for o in tool["providers"] if o["name"] == "acme")
    assert acme_option["configured"] is True
    assert acme_option["keys"] == ["WAYFARER_CONNECTORS__ACME_KEY"]

    body = await call_sights(client)
    assert body["provider"] == "acme" and body["sandbox"] is False, body
    assert [r["data"]["name"] for r in body["results"]] == ["Acme Colosseum Walk"]


async def test_without_its_key_an_outside_provider_stays_on_the_sandbox(
    aiohttp_client: Any, make_settings: Callable[..., Settings], small_seed: Any
) -> None:
    from rag.web.app import create_app

    client = await aiohttp_client(create_app(settings_for(make_settings, small_seed)))
    tool = await listed(client)
    assert tool["provider"] == "acme" and tool["sandbox"] is True, tool
    body = await call_sights(client)
    assert body["provider"] == "acme" and body["sandbox"] is True, body


def test_real_mode_without_the_outside_key_names_it(make_settings: Callable[..., Settings]) -> None:
    from connectors.providers import choose
    from rag.errors import ConfigError

    settings = make_settings(
        WAYFARER_CONNECTORS__MODE="real",
        WAYFARER_CONNECTORS__PROVIDERS=json.dumps({"activity_search": __name__}),
    )
    with pytest.raises(ConfigError, match="activity_search needs WAYFARER_CONNECTORS__ACME_KEY"):
        choose(settings.connectors, ["activity_search"])


def test_a_declaration_naming_a_setting_its_model_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match=r"provider acme: \['acme_token'\] are not fields of AcmeSettings"):
        ProviderSpec(
            name="acme", tools=PROVIDER.tools, build=_build, keys=("acme_token",), config=AcmeSettings
        )


def test_a_bad_value_of_an_outside_setting_names_its_variable(make_settings: Callable[..., Settings]) -> None:
    from rag.errors import ConfigError

    class Strict(BaseModel):
        acme_port: int = 443

    settings = make_settings(WAYFARER_CONNECTORS__ACME_PORT="https")
    with pytest.raises(ConfigError, match="WAYFARER_CONNECTORS__ACME_PORT"):
        settings.connectors.section(Strict)
    assert make_settings(WAYFARER_CONNECTORS__ACME_PORT="8443").connectors.section(Strict).acme_port == 8443

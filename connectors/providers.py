"""Which provider serves each tool: every provider module declares ``PROVIDER`` (a ProviderSpec), and
``choose`` picks one per tool from the settings.

A provider is one module: its connector class, its terms (connectors.base.Terms) and its ``PROVIDER``
declaration (name, tools, the settings that hold its key, where to sign up, how to build it). Built-in
providers are listed in BUILTIN, in the order ``auto`` prefers them; one outside this package is named
by its module path in ``WAYFARER_CONNECTORS__PROVIDERS`` ({"flight_search": "mypackage.myprovider"}).

Modes (``WAYFARER_CONNECTORS__MODE``):
- ``auto``: per tool, the provider named for it in PROVIDERS, else the first built-in that serves it
  and is configured (its key is set; one without a key that needs the network, Open-Meteo, counts as
  configured once any keyed provider is, i.e. once the service is meant to go online; the place
  catalogue needs neither). A tool with none goes to the offline sandbox, in its first provider's dialect.
- ``sandbox``: every networked provider talks to the offline sandbox.
- ``live``: every tool must have a configured provider; a missing key is a start-up error naming it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from connectors.base import Provider
from rag.errors import ConfigError

if TYPE_CHECKING:
    import aiohttp

    from connectors.http import RetryPolicy
    from connectors.locations import LocationCatalogue

# Built-in provider modules, in the order ``auto`` prefers them for a tool: the ones a developer can sign
# up for today first, Amadeus-compatible endpoints last (Amadeus Self-Service closed in July 2026).
BUILTIN = (
    "connectors.duffel",
    "connectors.liteapi",
    "connectors.travelpayouts",
    "connectors.opentripmap",
    "connectors.offline_locations",
    "connectors.open_meteo",
    "connectors.amadeus",
)


@dataclass(frozen=True)
class BuildContext:
    """What building a provider may use: the app's HTTP session, the ``connectors`` settings section,
    the sandbox's URL when this provider talks to it, the retry policy and size limit, the places."""

    session: aiohttp.ClientSession
    settings: Any  # rag.settings.ConnectorSettings
    sandbox_url: str | None
    policy: RetryPolicy
    max_bytes: int
    catalogue: LocationCatalogue

    @property
    def sandbox(self) -> bool:
        return self.sandbox_url is not None

    def credentials(self, key: str, base_url: str, sandbox_key: str) -> tuple[str, str]:
        """(base URL, key): the sandbox's and its own key, or the configured ones (the setting named)."""
        if self.sandbox_url is not None:
            return self.sandbox_url, sandbox_key
        secret = getattr(self.settings, key)
        if secret is None:
            raise ConfigError(f"WAYFARER_CONNECTORS__{key.upper()} is not set")
        return str(getattr(self.settings, base_url)), str(secret.get_secret_value())


@dataclass(frozen=True)
class ProviderSpec:
    name: str
    tools: frozenset[str]
    build: Callable[[BuildContext], Provider]
    # Settings of the ``connectors`` section that must all be set to use the real service (its key).
    keys: tuple[str, ...] = ()
    # False: answers from data shipped with Wayfarer (no network, no key, never the sandbox).
    network: bool = True
    # Where a developer gets a key, and one line on what it serves (shown by /v1/tools and the CLI).
    signup: str | None = None
    about: str = ""
    # Settings of the ``connectors`` section it reads besides its keys (base URLs), for the docs.
    settings: tuple[str, ...] = field(default_factory=tuple)

    def configured(self, connectors: Any, *, online: bool) -> bool:
        """Whether the real service can be used: its keys are set (``online``: keyless networked
        providers may be used)."""
        if not self.network:
            return True
        if self.keys:
            return all(getattr(connectors, k, None) for k in self.keys)
        return online


def load_spec(name: str) -> ProviderSpec:
    """The declaration of a built-in provider by its name, or of the module at a dotted path."""
    for module in BUILTIN:
        spec = _module_spec(module)
        if spec.name == name:
            return spec
    if "." in name:
        try:
            return _module_spec(name)
        except ImportError as exc:
            raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: cannot import {name}: {exc}") from exc
    known = ", ".join(s.name for s in builtin())
    raise ConfigError(
        f"WAYFARER_CONNECTORS__PROVIDERS: unknown provider {name!r} ({known}, or a module path)"
    )


def builtin() -> list[ProviderSpec]:
    return [_module_spec(m) for m in BUILTIN]


def _module_spec(module: str) -> ProviderSpec:
    spec = getattr(importlib.import_module(module), "PROVIDER", None)
    if not isinstance(spec, ProviderSpec):
        raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: {module} declares no PROVIDER")
    return spec


@dataclass(frozen=True)
class Choice:
    """The provider a tool uses now, and whether through the offline sandbox."""

    tool: str
    provider: ProviderSpec
    sandbox: bool
    why: str
    # Every provider that could serve the tool, in preference order.
    options: tuple[ProviderSpec, ...] = ()


def is_online(connectors: Any) -> bool:
    """Whether keyless networked providers (Open-Meteo) may be used: in live mode, or once any keyed
    provider is configured."""
    return connectors.mode == "live" or any(
        s.keys and s.configured(connectors, online=False) for s in builtin()
    )


def choose(connectors: Any, tools: Iterable[str]) -> dict[str, Choice]:
    """Per tool, its provider under the settings' mode (see the module docstring)."""
    mode = connectors.mode
    known = builtin()
    online = is_online(connectors)
    choices: dict[str, Choice] = {}
    for tool in tools:
        named = connectors.providers.get(tool)
        options = [s for s in known if tool in s.tools]
        if named is not None:
            spec = load_spec(named)
            if tool not in spec.tools:
                raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: {named} does not serve {tool}")
            options = [spec, *(s for s in options if s.name != spec.name)]
        if not options:
            raise ConfigError(f"WAYFARER_CONNECTORS__PROVIDERS: no provider serves {tool}")
        candidates = options[:1] if named is not None else options
        ready = [s for s in candidates if s.configured(connectors, online=online)]
        if mode == "sandbox":
            spec = candidates[0]
            choices[tool] = Choice(
                tool, spec, spec.network, "WAYFARER_CONNECTORS__MODE=sandbox", tuple(options)
            )
        elif ready:
            why = "named in WAYFARER_CONNECTORS__PROVIDERS" if named else "first configured provider"
            choices[tool] = Choice(tool, ready[0], False, why, tuple(options))
        elif mode == "live":
            need = " or ".join(
                " and ".join(f"WAYFARER_CONNECTORS__{k.upper()}" for k in s.keys)
                for s in candidates
                if s.keys
            )
            raise ConfigError(f"WAYFARER_CONNECTORS__MODE=live: {tool} needs {need}")
        else:
            choices[tool] = Choice(tool, candidates[0], True, "no provider configured", tuple(options))
    return choices

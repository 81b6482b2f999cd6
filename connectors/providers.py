"""Which provider serves each tool: every provider module declares ``PROVIDER`` (a ProviderSpec), and
``choose`` picks one per tool from the settings.

A provider is one module: its connector class, its terms (connectors.base.Terms) and its ``PROVIDER``
declaration (name, tools, the settings that hold its key, where to sign up, how to build it). Built-in
providers are listed in BUILTIN, in the order ``auto`` prefers them; one outside this package is named
by its module path in ``WAYFARER_CONNECTORS__PROVIDERS`` ({"flight_search": "mypackage.myprovider"})
and brings its own settings model (``ProviderSpec.config``): its key is then read from
``WAYFARER_CONNECTORS__<FIELD>`` with nothing else to change.

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

from pydantic import BaseModel, SecretStr

from connectors.base import Provider
from connectors.errors import ConfigError
from connectors.settings import ConnectorSettings

if TYPE_CHECKING:
    import aiohttp

    from connectors.http import RetryPolicy
    from connectors.places import LocationCatalogue

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
    the sandbox's URL when this provider talks to it, the retry policy and size limit, the places, and
    the provider's own settings model if it declares one (``ProviderSpec.config``)."""

    session: aiohttp.ClientSession
    settings: ConnectorSettings
    sandbox_url: str | None
    policy: RetryPolicy
    max_bytes: int
    catalogue: LocationCatalogue
    config: type[BaseModel] | None = None

    @property
    def sandbox(self) -> bool:
        return self.sandbox_url is not None

    def credentials(self, key: str, base_url: str, sandbox_key: str) -> tuple[str, str]:
        """(base URL, key): the sandbox's and its own key, or the configured ones (the settings named,
        read from the provider's own settings model when it has one)."""
        if self.sandbox_url is not None:
            return self.sandbox_url, sandbox_key
        values = settings_of(self.config, self.settings)
        secret = getattr(values, key, None)
        if not secret:
            raise ConfigError(f"WAYFARER_CONNECTORS__{key.upper()} is not set")
        return str(getattr(values, base_url)), _plain(secret)


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
    # Its own settings model, whose fields (``keys`` and ``settings`` among them) are read from
    # WAYFARER_CONNECTORS__<FIELD>: how a provider outside the package gets its key. None: its settings
    # are fields of ConnectorSettings (the built-in providers').
    config: type[BaseModel] | None = None

    def __post_init__(self) -> None:
        if self.config is not None:
            missing = [k for k in (*self.keys, *self.settings) if k not in self.config.model_fields]
            if missing:
                raise ValueError(f"provider {self.name}: {missing} are not fields of {self.config.__name__}")

    def values(self, connectors: ConnectorSettings) -> Any:
        """Its settings: its own model read from the ``connectors`` section, or the section itself."""
        return settings_of(self.config, connectors)

    def configured(self, connectors: ConnectorSettings, *, online: bool) -> bool:
        """Whether the real service can be used: its keys are set (``online``: keyless networked
        providers may be used)."""
        if not self.network:
            return True
        if self.keys:
            values = self.values(connectors)
            return all(getattr(values, k, None) for k in self.keys)
        return online


def settings_of(config: type[BaseModel] | None, connectors: ConnectorSettings) -> Any:
    """A provider's settings: its own model (``config``) read from the section, or the section."""
    return connectors.section(config) if config is not None else connectors


def _plain(secret: Any) -> str:
    return secret.get_secret_value() if isinstance(secret, SecretStr) else str(secret)


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


def is_online(connectors: ConnectorSettings) -> bool:
    """Whether keyless networked providers (Open-Meteo) may be used: in real mode, or once any keyed
    provider is configured (a built-in one, or one named in PROVIDERS)."""
    if connectors.mode == "real":
        return True
    return any(s.keys and s.configured(connectors, online=False) for s in (*builtin(), *_named(connectors)))


def _named(connectors: ConnectorSettings) -> list[ProviderSpec]:
    """The providers named in PROVIDERS that load (one that does not is refused where its tool is chosen)."""
    specs = []
    for name in dict.fromkeys(connectors.providers.values()):
        try:
            specs.append(load_spec(name))
        except ConfigError:
            continue
    return specs


def choose(connectors: ConnectorSettings, tools: Iterable[str]) -> dict[str, Choice]:
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
        elif mode == "real":
            need = " or ".join(
                " and ".join(f"WAYFARER_CONNECTORS__{k.upper()}" for k in s.keys)
                for s in candidates
                if s.keys
            )
            raise ConfigError(f"WAYFARER_CONNECTORS__MODE=real: {tool} needs {need}")
        else:
            choices[tool] = Choice(tool, candidates[0], True, "no provider configured", tuple(options))
    return choices

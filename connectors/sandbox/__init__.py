"""An offline sandbox serving the Amadeus Self-Service and Open-Meteo APIs with deterministic data.

runner, base_url = await start_sandbox()          # or create_sandbox_app() with aiohttp_client
...point the connectors' base URLs at base_url...
await stop_sandbox(runner)
"""

from connectors.sandbox.app import FAULTS, create_sandbox_app, start_sandbox, stop_sandbox
from connectors.sandbox.faults import SandboxFaults

__all__ = ["FAULTS", "SandboxFaults", "create_sandbox_app", "start_sandbox", "stop_sandbox"]

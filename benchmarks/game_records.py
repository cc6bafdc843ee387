"""Reading the records of tournaments for the result tables of ``benchmarks/`` (as plain JSON objects)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any


def read_records(paths: Iterable[str | Path]) -> Iterator[dict[str, Any]]:
    """Every record of the given ``games.jsonl`` files, in order; a folder stands for its ``games.jsonl``."""
    for name in paths:
        path = Path(name)
        if path.is_dir():
            path = path / "games.jsonl"
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield json.loads(line)

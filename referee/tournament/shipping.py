"""Packing a tournament's agent folders to ship them to cluster workers (``ship_agents``).

An agent is imported, in its own process, from the top-level package its
spec names (``agents`` for ``agents.minimax``, ``submissions`` for
``submissions.alice``), found in the working directory.  To play on a
machine that does not have those folders, the tournament packs them here
into one zip archive; the Dask executor sends it to every worker, which
unpacks it into a folder of its own and starts the agents there.

No Dask here: packing and unpacking are plain files, tested on their own.
"""
from __future__ import annotations

import io
import os
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterable

from ..match import SpecError, parse_spec

#: Never shipped: byte-code caches (each worker's Python writes its own) and VCS data.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")
#: The referee itself is never shipped: the workers' own copy must run their games.
NOT_SHIPPED = frozenset({"referee"})


class ShippingError(ValueError):
    """The agents cannot be packed; the message names the agent and what is missing."""


@dataclass(frozen=True)
class AgentBundle:
    """The packed folders: a zip archive and what it holds."""

    archive: bytes
    roots: tuple[str, ...]  # top-level entries shipped: "agents/", "bot.py"
    files: int

    def describe(self) -> str:
        size = len(self.archive)
        amount = f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
        return f"{', '.join(self.roots)} ({self.files} files, {amount})"


def top_level_package(spec: str) -> str:
    """``submissions.alice:Bot`` -> ``submissions``."""
    module, _ = parse_spec(spec)
    return module.split(".", 1)[0]


def package_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` in a fixed order (sorted, walked depth first), without caches or VCS data."""
    found: list[Path] = []
    for parent, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        found.extend(Path(parent) / name for name in sorted(files) if not name.endswith(SKIPPED_SUFFIXES))
    return found


def pack_agents(specs: Iterable[tuple[str, str]], root: Path) -> AgentBundle:
    """Zip the top-level folder (or module file) of each agent, found in ``root``.

    ``specs`` are (agent name, package spec) pairs; the names are for
    messages.  Raises :class:`ShippingError` if an agent's package is not in
    ``root``: shipping could not make it importable on the workers.
    """
    root = Path(root)
    entries: dict[str, Path] = {}  # name in the archive -> file
    roots: list[str] = []
    for name, spec in specs:
        try:
            package = top_level_package(spec)
        except SpecError as exc:
            raise ShippingError(f"agent {name!r}: {exc}") from None
        if package in NOT_SHIPPED or package + "/" in roots or package + ".py" in roots:
            continue
        folder, module = root / package, root / f"{package}.py"
        if folder.is_dir():
            roots.append(package + "/")
            for path in package_files(folder):
                entries[path.relative_to(root).as_posix()] = path
        elif module.is_file():
            roots.append(package + ".py")
            entries[module.name] = module
        else:
            raise ShippingError(
                f"agent {name!r} ({spec}): ship_agents sends the folder of its package, but there is no "
                f"{package}/ (or {package}.py) in {root}; run the tournament from the folder that holds it"
            )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for arcname in sorted(entries):
            try:
                archive.write(entries[arcname], arcname)
            except OSError as exc:
                raise ShippingError(f"cannot pack {entries[arcname]}: {exc.strerror or exc}") from None
    data = buffer.getvalue()
    return AgentBundle(data, tuple(roots), len(entries))


def unpack(archive: bytes, folder: Path) -> None:
    """Unpack an archive of :func:`pack_agents` into ``folder`` (created; left alone if it exists).

    The files go to a temporary sibling that is renamed into place, so a
    folder that exists is always complete, even if a worker died while
    unpacking.
    """
    folder = Path(folder)
    if folder.is_dir():
        return
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        for member in zipped.namelist():
            # Only ever relative paths inside the folder (the archive is ours, but cheap to check).
            if member.startswith("/") or ".." in Path(member).parts:
                raise ShippingError(f"refusing to unpack {member!r}: outside the folder")
        zipped.extractall(partial)
    try:
        os.replace(partial, folder)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        if not folder.is_dir():  # not another process's complete copy: a real failure
            raise

"""Where the submission's agent package is, and what to tell a student whose zip has it in the wrong place."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ...match import parse_spec, spec_problem
from ..feedback import code_span, paragraphs
from .scheme import Scheme

#: At most this many of a submission's files and folders are named when its agent is not found.
SHOWN_ENTRIES = 12
#: Folders never taken for the agent under another name: the course's template ships its own referee/ beside
#: agent/ (the grader brings its own referee, so that one is never the student's agent).
NOT_AGENTS = ("referee",)
#: Looking for the agent's class in a folder reads at most this many of its modules, each up to this many bytes:
#: a submission is the student's, and a folder of huge files must not hold the grader up.
MAX_MODULES, MAX_MODULE_BYTES = 50, 256 * 1024


@dataclass(frozen=True)
class Found:
    """Where the submission's agent package is: the folder its games start in."""

    top: str  # the package's top-level name (agent)
    folder: Path | None  # None: not found, or found only where the scheme does not look
    nested: str | None = None  # the sub-folder of the submission it was found in, when not at the top
    elsewhere: tuple[str, ...] = ()  # sub-folders holding one, when none was used
    #: The one package there under another name (``my_agent``, or ``project/my_agent`` one folder down), when none
    #: was used: the fix is to rename it, which the feedback says.
    misnamed: str | None = None


def _holds(folder: Path, top: str) -> bool:
    return (folder / top).is_dir() or (folder / f"{top}.py").is_file()


def _subfolders(submission: Path) -> list[Path]:
    try:
        # Hidden folders and the __MACOSX folder of a zip made on a Mac hold no one's code.
        return sorted(p for p in submission.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX")))
    except OSError:
        return []


def _is_package(folder: Path) -> bool:
    return (folder / "__init__.py").is_file()


def _defines(folder: Path, class_name: str) -> bool:
    """Whether a module directly in ``folder`` defines the class ``class_name`` (read, never imported)."""
    pattern = re.compile(rf"^class\s+{re.escape(class_name)}\b".encode(), re.MULTILINE)
    try:
        modules = sorted(folder.glob("*.py"))[:MAX_MODULES]
    except OSError:
        return False
    for module in modules:
        try:
            with module.open("rb") as file:
                if pattern.search(file.read(MAX_MODULE_BYTES)):
                    return True
        except OSError:
            continue
    return False


def _packages(folder: Path, class_name: str) -> list[Path]:
    """The folders in ``folder`` that look like an agent's package: an ``__init__.py``, or a module defining its class.

    Where several do, only those defining the class count (a ``tests/`` package beside the agent's is no agent).
    """
    found = [p for p in _subfolders(folder) if p.name not in NOT_AGENTS and (_is_package(p) or _defines(p, class_name))]
    if len(found) > 1:
        found = [p for p in found if _defines(p, class_name)]
    return found


def _misnamed(submission: Path, class_name: str) -> str | None:
    """The one package of the submission that is its agent under another name, relative to it (None: not one).

    Looked for at the top, else one folder down (the project folder zipped, its package misnamed too).
    """
    found = _packages(submission, class_name)
    if not found:
        found = [p for sub in _subfolders(submission) if not _is_package(sub) for p in _packages(sub, class_name)]
    return found[0].relative_to(submission).as_posix() if len(found) == 1 else None


def find_agent(scheme: Scheme, submission: Path) -> Found:
    """Find the agent package at the submission's top, or one folder down (a zip of the folder, not its contents).

    One folder down is used only when the scheme allows it (``nested_agent``)
    and exactly one sub-folder holds the package; otherwise nothing is
    played and the feedback names what was found: where it is one folder
    down, or the one package under another name (``my_agent/``), to rename.
    """
    module, class_name = parse_spec(scheme.agent)
    top = module.split(".")[0]
    if _holds(submission, top):
        return Found(top, submission)
    inside = tuple(folder.name for folder in _subfolders(submission) if _holds(folder, top))
    if len(inside) == 1 and scheme.nested_agent:
        return Found(top, submission / inside[0], nested=inside[0])
    if not inside and spec_problem(scheme.agent, submission) is None:
        return Found(top, submission)  # a spec naming an installed package (a scheme tried on a bundled agent)
    return Found(top, None, elsewhere=inside, misnamed=None if inside else _misnamed(submission, class_name))


@dataclass(frozen=True)
class Unplayed:
    """Why no game was played: a clause every test's first line uses, and what the load check adds."""

    why: str  # "your submission has no agent/ folder"
    details: str = ""  # Markdown


def _listing(submission: Path) -> str:
    """What the submission holds at its top, in a few names."""
    try:
        entries = sorted(p for p in submission.iterdir() if not p.name.startswith((".", "__MACOSX")))
    except OSError:
        entries = []
    if not entries:
        return "Your submission is empty."
    names = [p.name + ("/" if p.is_dir() else "") for p in entries[:SHOWN_ENTRIES]]
    more = f" and {len(entries) - SHOWN_ENTRIES} more" if len(entries) > SHOWN_ENTRIES else ""
    return "Your submission holds: " + ", ".join(code_span(name) for name in names) + more + "."


def unplayed(found: Found, submission: Path) -> Unplayed | None:
    """Why no game can be played for lack of the agent package (None: it was found)."""
    if found.folder is not None:
        return None
    top = found.top
    fix = (
        f"Your agent must be the package {code_span(top + '/')} (its {code_span('__init__.py')} and your "
        f"modules) at the top of your submission: zip the contents of your project folder, not the folder."
    )
    if found.misnamed is not None:
        # Its package under another name (the tutorial's my_agent/): the fix is renaming it, not zipping otherwise.
        project, _, name = found.misnamed.rpartition("/")
        rename = (
            f"Your agent must be the package {code_span(top + '/')}: rename {code_span(found.misnamed + '/')} to "
            f"{code_span(f'{project}/{top}/' if project else f'{top}/')}. If your modules import each other by the "
            f"name {code_span(name)} ({code_span(f'from {name}.utils import helper')}), import them relatively "
            f"instead ({code_span('from .utils import helper')})."
        )
        if project:
            rename += f" Then zip the contents of {code_span(project + '/')}, not the folder itself."
        if not (submission / found.misnamed / "__init__.py").is_file():
            rename += (f" It also needs an {code_span('__init__.py')} that imports your agent's class (for "
                       f"example {code_span('from .program import Agent')}).")
        return Unplayed(
            f"your submission has no {top}/ folder (rename your package {code_span(found.misnamed + '/')} to "
            f"{code_span(top + '/')})",
            paragraphs(_listing(submission), rename),
        )
    if not found.elsewhere:
        return Unplayed(f"your submission has no {top}/ folder", paragraphs(_listing(submission), fix))
    if len(found.elsewhere) == 1:
        where = code_span(f"{found.elsewhere[0]}/{top}/")
        return Unplayed(
            f"your submission has no {top}/ folder at its top (it is in {where})",
            paragraphs(f"This assignment does not look inside folders. {fix}"),
        )
    where = ", ".join(code_span(f"{name}/{top}/") for name in found.elsewhere)
    return Unplayed(
        f"your submission has no {top}/ folder at its top (there is one in each of {where})",
        paragraphs(f"Submit one of them. {fix}"),
    )


def nested_note(found: Found) -> str | None:
    """The note on an agent package found one folder down and used."""
    if found.nested is None:
        return None
    return (
        f"Note: your submission has no {found.top}/ folder at its top; the one in "
        f"{code_span(f'{found.nested}/{found.top}/')} was used. Next time zip the contents of "
        f"{code_span(found.nested + '/')}, not the folder itself."
    )

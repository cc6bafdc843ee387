"""Reading a YAML settings file and checking its fields, every problem placed at its line.

Tournament configs and marking schemes are small YAML files written by
hand.  :class:`Document` reads one with a bounded loader (no alias may
expand it past :data:`MAX_VALUES` values, no nesting past
:data:`MAX_DEPTH`) and keeps the line of every field, so a problem reads
``file:line: field: what is wrong``; a file that is not YAML reads
``file:line:column: not valid YAML: ...``.  :func:`check_fields` names an
unknown field with the field it most likely meant, and :class:`Problems`
collects every problem so that one run reports them all.

Everything raises :class:`YamlFileError` (one message per problem); a caller
with its own error type converts at its boundary.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

T = TypeVar("T")

#: A file may hold at most this many values (scalars, lists, mappings),
#: counting an alias's value each time it is used: aliases otherwise let a
#: few hundred bytes stand for billions of values ("billion laughs"), and
#: checking the file walks every one of them.
MAX_VALUES = 100_000
#: Lists and mappings may nest this deep (PyYAML composes recursively).
MAX_DEPTH = 100
#: The suffixes a settings file has, for guessing the file a missing one meant.
SUFFIXES = (".yaml", ".yml")


class YamlFileError(ValueError):
    """A settings file that cannot be used: one or more problems, each naming the file, line and field."""

    def __init__(self, *problems: str):
        super().__init__("\n".join(problems))
        self.problems: list[str] = list(problems)


def field_path(path: tuple[Any, ...]) -> str:
    """``("agents", 0, "spec")`` -> ``agents[0].spec``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def shown(value: Any) -> str:
    """A YAML value as an error message names it (``empty``, ``a list``, ``'x'``)."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    return repr(value)


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that refuses, while composing, what would make loading blow up.

    Each node's size with its aliases expanded is counted once, when it is
    composed, from its children's sizes, so the count is linear in the file.
    An alias to a node still being composed (one that contains the alias)
    would be an infinite structure, and is refused too.
    """

    def __init__(self, text: str, path: Path | str, kind: str):
        super().__init__(text)
        self.path = path
        self.kind = kind
        self.depth = 0
        self.aliases = 0
        self.sizes: dict[int, int] = {}  # id(node) -> values in it, aliases expanded

    def _refuse(self, mark: yaml.Mark, message: str) -> YamlFileError:
        return YamlFileError(f"{self.path}:{mark.line + 1}: {message}")

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None and id(target) not in self.sizes:
                raise self._refuse(event.start_mark, f"the alias *{event.anchor} is used inside the value it names, "
                                   f"which would make an endless structure; {self.kind} cannot use that")
            self.aliases += 1
            return super().compose_node(parent, index)  # an undefined alias is PyYAML's error
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self._refuse(self.peek_event().start_mark, f"lists and mappings nested more than {MAX_DEPTH} deep; "
                               f"{self.kind} needs only a few levels")
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        assert node is not None  # None is only for an empty document, which is not composed here
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [child for pair in node.value for child in pair]
        else:
            children = []
        size = 1 + sum(self.sizes[id(child)] for child in children)
        if size > MAX_VALUES:
            how = " once its aliases (*name) are expanded" if self.aliases else ""
            raise self._refuse(node.start_mark, f"this holds more than {MAX_VALUES} values{how}; "
                               f"{self.kind} never needs so many, so it is refused")
        self.sizes[id(node)] = size
        return node


class Document:
    """A YAML file's data plus the line of every field, for messages.

    ``kind`` names what the file is in messages ("a marking scheme");
    ``guide`` is the page an empty file is sent to.  Fields given twice are
    not an error while reading: they are in :attr:`problems`, for the
    caller to report with its own.
    """

    def __init__(self, path: Path | str, text: str, *, kind: str = "a settings file", guide: str | None = None):
        self.path = path
        self.lines: dict[tuple[Any, ...], int] = {}
        #: Problems found while reading (fields given twice); the checks add theirs.
        self.problems: list[str] = []
        loader = _BoundedLoader(text, path, kind)
        try:
            node = loader.get_single_node()
            if node is None:
                see = f"; see {guide} for the fields" if guide else ""
                raise YamlFileError(f"{path}: the file is empty{see}")
            self._walk(node, ())
            self.data: Any = loader.construct_document(node)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
            raise YamlFileError(f"{where}: not valid YAML: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise YamlFileError(f"{path}: not valid YAML: {exc}") from None
        finally:
            loader.dispose()

    def _walk(self, node: yaml.Node, path: tuple[Any, ...], line: int | None = None) -> None:
        # A mapping's value is placed at its key's line (a block list starts below it).
        self.lines[path] = line or node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, value_node in node.value:
                key = key_node.value
                if key in seen:
                    self.problems.append(
                        f"{self.path}:{key_node.start_mark.line + 1}: {field_path(path + (key,))}: given twice"
                    )
                    continue
                seen.add(key)
                self._walk(value_node, path + (key,), key_node.start_mark.line + 1)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, path + (index,))

    def place(self, *path: Any) -> str:
        """``file:line`` of the field at ``path`` (or of the nearest enclosing field known)."""
        probe = tuple(path)
        while probe not in self.lines and probe:
            probe = probe[:-1]
        line = self.lines.get(probe)
        return f"{self.path}:{line}" if line else str(self.path)

    def where(self, *path: Any) -> str:
        """``file:line: field`` (the line of the nearest enclosing field known)."""
        location = self.place(*path)
        return f"{location}: {field_path(path)}" if path else location

    def problem(self, path: tuple[Any, ...], message: str) -> str:
        """``file:line: field: message``."""
        return f"{self.where(*path)}: {message}"

    def fail(self, path: tuple[Any, ...], message: str) -> YamlFileError:
        """The error to raise for one problem of the field at ``path``."""
        return YamlFileError(self.problem(path, message))


class Problems:
    """Every problem of a file, so that one run reports them all (each check that
    does not depend on another runs even after that one failed)."""

    def __init__(self, first: Iterable[str] = ()):
        self.messages: list[str] = list(first)

    def check(self, check: Callable[[], T], fallback: T) -> T:
        """``check()``, or ``fallback`` after noting its problems."""
        try:
            return check()
        except YamlFileError as exc:
            self.messages.extend(exc.problems)
            return fallback

    def raise_any(self) -> None:
        if self.messages:
            raise YamlFileError(*self.messages)


def unknown_fields(doc: Document, path: tuple[Any, ...], mapping: Mapping[Any, Any], allowed: tuple[str, ...]
                   ) -> list[str]:
    """A problem for each key of ``mapping`` (the one at ``path``) not in ``allowed``, with the field it meant."""
    problems = []
    for key in mapping:
        if not isinstance(key, str) or key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(allowed)})"
            problems.append(doc.problem(path + (key,), f"unknown field{hint}"))
    return problems


def check_fields(doc: Document, path: tuple[Any, ...], mapping: Mapping[Any, Any], allowed: tuple[str, ...]) -> None:
    """Raise :class:`YamlFileError` naming every unknown field of ``mapping`` (see :func:`unknown_fields`)."""
    problems = unknown_fields(doc, path, mapping, allowed)
    if problems:
        raise YamlFileError(*problems)


def line_of(message: str, path: Path | str) -> int:
    """The line a problem names (``file:line: ...``), for reporting them in file order; 0 if none."""
    rest = message[len(str(path)) + 1:] if message.startswith(f"{path}:") else ""
    number = rest.split(":", 1)[0]
    return int(number) if number.isdigit() else 0


def in_file_order(messages: Iterable[str], path: Path | str) -> list[str]:
    """Problems sorted by the line they name, however the checks ran (a stable sort: one line's keep their order)."""
    return sorted(messages, key=lambda message: line_of(message, path))


def read_text(path: Path) -> str:
    """A settings file's text; a missing one names the file beside it that was most likely meant."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        meant = meant_file(path)
        raise YamlFileError(f"{path}: no such file" + (f" (did you mean {meant}?)" if meant else "")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise YamlFileError(f"{path}: cannot be read: {exc}") from None


def meant_file(path: Path) -> Path | None:
    """The YAML file beside a missing ``path`` that it most likely meant: the other suffix, or a close name."""
    folder = path.parent
    try:
        files = sorted(p.name for p in folder.iterdir() if p.suffix in SUFFIXES and p.is_file())
    except OSError:
        return None
    for suffix in SUFFIXES:
        if path.with_suffix(suffix).name in files:
            return path.with_suffix(suffix)
    close = difflib.get_close_matches(path.name, files, n=1)
    return folder / close[0] if close else None

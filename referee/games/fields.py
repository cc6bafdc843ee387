"""A game state's mutable fields, declared once.

An engine lists its state's fields in one :class:`StateFields` value, saying
for each how it is copied and how it enters the position's key; the
snapshot (for undo), restore, copy and key functions are generated from that
list, so a field cannot be forgotten in one of them.  The list also gives the
class its ``__slots__``: an attribute that is not declared cannot be set at
all, which catches a field added to the class but not to the declaration.

The functions are generated as source and compiled, as :mod:`dataclasses`
does, because they sit on the search hot path: a loop over the fields would
cost several times the work they do.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

# How a field's value is copied (in snapshots, restores and copies).  The
# text is a format string applied to the expression holding the value.
SHARED = "{}"  # immutable (int, bool, str, tuple, bytes, frozen objects): shared as is
COPY = "{}.copy()"  # list, dict, set or bytearray of immutable items
PAIR = "[{0}[0].copy(), {0}[1].copy()]"  # one container per player, each copied

# How a field enters the key.  ``None`` leaves it out (a count, a cache).
AS_IS = "{}"
AS_TUPLE = "tuple({})"
AS_BYTES = "bytes({})"
ITEMS = "tuple({}.items())"  # a dict in a canonical insertion order
SORTED_ITEMS = "tuple(sorted({}.items()))"
PAIR_ITEMS = "(tuple({0}[0].items()), tuple({0}[1].items()))"


class Field(NamedTuple):
    """One mutable field of a state.

    ``copy`` and ``key`` are format strings (the constants above) or, for
    anything else, a function of the value.  ``undo`` says whether the
    field is saved before each action and restored by undo (only fields
    that no action changes may leave it off).
    """

    name: str
    copy: str | Callable[[Any], Any] = SHARED
    key: str | Callable[[Any], Hashable] | None = AS_IS
    undo: bool = True


class StateFields:
    """The fields of one state class and the functions derived from them.

    ``transient`` names the attributes that are not part of the position
    (undo history, caches): they are in ``slots`` but in nothing else, and
    the class sets them itself.
    """

    def __init__(self, fields: Sequence[Field], transient: Sequence[str] = ()):
        names = [f.name for f in fields] + list(transient)
        if len(set(names)) != len(names):
            raise ValueError(f"a field is declared twice: {names}")
        self.fields = tuple(fields)
        self.transient = tuple(transient)
        #: What the class's ``__slots__`` must be.
        self.slots: tuple[str, ...] = tuple(names)
        helpers: dict[str, Any] = {}

        def expr(spec: str | Callable[[Any], Any], value: str, tag: str) -> str:
            if isinstance(spec, str):
                return spec.format(value)
            helpers[tag] = spec
            return f"{tag}({value})"

        saved = [f for f in self.fields if f.undo]
        copies = {f.name: f.copy for f in self.fields}
        lines = ["def snapshot(self):", "    return (" + "".join(
            expr(copies[f.name], f"self.{f.name}", f"_copy_{f.name}") + ", " for f in saved) + ")"]
        # Containers are copied back too: a snapshot may be shared with a copy
        # of the state (copies share the history), so it must never be mutated.
        lines += ["def restore(self, snap):"]
        if saved:
            # Shared values unpack straight into the state; containers are copied.
            targets = "".join(f"self.{f.name}, " if f.copy == SHARED else f"_{f.name}, " for f in saved)
            lines += [f"    ({targets}) = snap"]
            lines += [
                f"    self.{f.name} = " + expr(f.copy, f"_{f.name}", f"_copy_{f.name}")
                for f in saved
                if f.copy != SHARED
            ]
        else:
            lines += ["    pass"]
        lines += ["def copy_into(self, other):"]
        lines += [f"    other.{f.name} = " + expr(f.copy, f"self.{f.name}", f"_copy_{f.name}") for f in self.fields]
        lines += ["    return other"]
        keyed = [f for f in self.fields if f.key is not None]
        lines += ["def key(self):", "    return (" + "".join(
            expr(f.key, f"self.{f.name}", f"_key_{f.name}") + ", " for f in keyed if f.key is not None) + ")"]
        self.source = "\n".join(lines) + "\n"
        namespace: dict[str, Any] = dict(helpers)
        exec(compile(self.source, f"<fields of {names[0] if names else '?'}...>", "exec"), namespace)
        #: ``snapshot(state)``: a tuple of the undo fields' values, copied.
        self.snapshot: Callable[[Any], tuple[Any, ...]] = namespace["snapshot"]
        #: ``restore(state, snapshot)``: put a snapshot's values back.
        self.restore: Callable[[Any, tuple[Any, ...]], None] = namespace["restore"]
        #: ``copy_into(state, other)``: copy every field to ``other``; returns it.
        self.copy_into: Callable[[Any, Any], Any] = namespace["copy_into"]
        #: ``key(state)``: a tuple of the keyed fields' keys.
        self.key: Callable[[Any], tuple[Hashable, ...]] = namespace["key"]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def check_class(self, cls: type) -> None:
        """Raise TypeError unless ``cls`` keeps exactly the declared attributes.

        Its ``__slots__`` (its own and its bases') must be the declared names,
        and it must have no ``__dict__``, so no undeclared attribute can be set.
        """
        slots: set[str] = set()
        for klass in cls.__mro__:
            own = klass.__dict__.get("__slots__", ())
            slots.update((own,) if isinstance(own, str) else own)
        if "__dict__" in slots or any("__dict__" in k.__dict__ for k in cls.__mro__ if k is not object):
            raise TypeError(f"{cls.__name__} has a __dict__: its fields are not all declared")
        if slots != set(self.slots):
            extra = sorted(slots - set(self.slots))
            missing = sorted(set(self.slots) - slots)
            raise TypeError(f"{cls.__name__}: slots not declared as fields {extra}, declared but no slot {missing}")

"""``evolve``: ``dataclasses.replace`` for the frozen states of rule modules, without its per-call overhead.

A replayed game makes a few copies of its state per move (the board, the state, the position, the table's
record); ``dataclasses.replace`` walks the class's fields and their kinds on every call and then runs
``__init__``. ``evolve`` runs one function made once per class that copies each field straight, for
dataclasses where that is exactly what ``__init__`` does: no ``__post_init__``, every field set by
``__init__``, no init-only variables. Any other class is left to ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_Maker = Callable[[Any, dict[str, Any]], Any]
_MAKERS: dict[type, _Maker] = {}


def evolve(obj: T, /, **changes: Any) -> T:
    """Return a copy of the dataclass instance ``obj`` with ``changes``, as ``dataclasses.replace`` would.

    A name that is not a field of ``obj`` raises TypeError, as ``replace`` does.
    """
    kind = type(obj)
    maker = _MAKERS.get(kind)
    if maker is None:
        maker = _MAKERS[kind] = _maker_for(kind)
    result: T = maker(obj, changes)
    return result


def _by_replace(obj: Any, changes: dict[str, Any]) -> Any:
    return dataclasses.replace(obj, **changes)


def _maker_for(kind: type) -> _Maker:
    """Return the copying function for ``kind`` (``dataclasses.replace`` where a straight copy is not safe)."""
    if not dataclasses.is_dataclass(kind) or hasattr(kind, "__post_init__"):
        return _by_replace
    fields = dataclasses.fields(kind)  # the real fields; ClassVar and InitVar pseudo-fields are left out
    names = [field.name for field in fields]
    declared = kind.__dataclass_fields__.values()
    if any(not field.init for field in fields) or any(
        field.name not in names and not _is_class_var(field) for field in declared
    ):  # a field __init__ computes, or an init-only variable ``replace`` would insist on
        return _by_replace
    lines = ["def make(obj, changes):", "    new = new_instance(kind)"]
    scope: dict[str, Any] = {"new_instance": object.__new__, "set_field": object.__setattr__, "kind": kind}
    for index, name in enumerate(names):
        if not name.isidentifier():
            return _by_replace
        value = f"changes.pop({name!r}) if {name!r} in changes else obj.{name}"
        slot = inspect.getattr_static(kind, name, None)
        if isinstance(slot, types.MemberDescriptorType):  # a __slots__ field: its setter, called straight
            scope[f"set_{index}"] = slot.__set__
            lines.append(f"    set_{index}(new, {value})")
        else:
            lines.append(f"    set_field(new, {name!r}, {value})")
    lines += [
        "    if changes:",
        "        raise TypeError(f'{kind.__name__} has no field named {next(iter(changes))!r}')",
        "    return new",
    ]
    exec("\n".join(lines), scope)
    maker: _Maker = scope["make"]
    return maker


def _is_class_var(field: dataclasses.Field[Any]) -> bool:
    """True for a ClassVar pseudo-field (not copied by ``replace`` either)."""
    return getattr(field, "_field_type", None) is getattr(dataclasses, "_FIELD_CLASSVAR", object())

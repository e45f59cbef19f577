"""Encode events to their JSON payloads and decode them back: the one place that knows the
stored form.

The payload of an event is a JSON object with one key per dataclass field (the key is the
field's name, or its ``json`` metadata, e.g. ``from``). Values: ints, strings, booleans and null
as themselves; tuples as arrays; nested dataclasses as objects; datetimes as ISO 8601 strings
(``datetime.isoformat`` of the UTC time). Decoding checks every field's type and raises
:class:`EventDecodeError` naming the event number and the field.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Any

from nomic_cards.core.ledger.events import (
    EVENT_TYPES,
    Event,
    EventRecord,
    JsonObject,
    StoredEvent,
    parse_time,
    utc,
)


class EventDecodeError(ValueError):
    """A stored payload that does not fit its kind: names the event number and the field."""

    def __init__(self, seq: int | None, kind: str, field: str | None, problem: str) -> None:
        self.seq, self.kind, self.field, self.problem = seq, kind, field, problem
        where = f"event {seq}" if seq is not None else "an event"
        if field is None:
            what = f"the {kind} event"
        else:
            what = f"field {field!r} of the {kind} event" if field else \
                f"the payload of the {kind} event"
        super().__init__(f"{where}: {what} {problem}")


@cache
def _fields(cls: Any) -> tuple[tuple[str, str, Any, bool], ...]:
    """(attribute, payload key, type, required) for each field of a dataclass."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        out.append((f.name, f.metadata.get("json", f.name), hints[f.name], required))
    return tuple(out)


def _encode_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {key: _encode_value(getattr(value, attr)) for attr, key, _t, _r in
                _fields(type(value))}
    if isinstance(value, tuple | list):
        return [_encode_value(v) for v in value]
    if isinstance(value, datetime):
        return utc(value).isoformat()
    if isinstance(value, Mapping):
        return {str(k): _encode_value(v) for k, v in value.items()}
    return value


def encode(event: Event) -> JsonObject:
    """The JSON payload of an event (a dict ready for canonical JSON)."""
    out: JsonObject = _encode_value(event)
    return out


class _Bad(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(problem)
        self.path, self.problem = path, problem


def _describe(value: object) -> str:
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_datetime(tp: Any) -> bool:
    """``datetime``, also when a test's frozen clock replaced the name with a subclass."""
    return isinstance(tp, type) and any(
        c.__module__ == "datetime" and c.__name__ == "datetime" for c in tp.__mro__)


def _decode_value(tp: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return _decode_value(inner[0], value, path)
        raise _Bad(path, "has a type the codec does not know")  # pragma: no cover
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _Bad(path, f"should be a whole number, not {_describe(value)}")
        return value
    if tp is str:
        if not isinstance(value, str):
            raise _Bad(path, f"should be text, not {_describe(value)}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise _Bad(path, f"should be true or false, not {_describe(value)}")
        return value
    if _is_datetime(tp):
        if not isinstance(value, str):
            raise _Bad(path, f"should be an ISO time, not {_describe(value)}")
        try:
            return parse_time(value)
        except ValueError:
            raise _Bad(path, f"should be an ISO time, not {_describe(value)}") from None
    if origin is tuple:
        if not isinstance(value, list):
            raise _Bad(path, f"should be a list, not {_describe(value)}")
        return tuple(_decode_value(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
    if origin in (dict, Mapping) or tp is JsonObject:
        if not isinstance(value, dict):
            raise _Bad(path, f"should be an object, not {_describe(value)}")
        if args and args[1] is str:
            for k, v in value.items():
                if not isinstance(v, str):
                    raise _Bad(f"{path}.{k}", f"should be text, not {_describe(v)}")
        return dict(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _decode_object(tp, value, path)
    raise _Bad(path, "has a type the codec does not know")  # pragma: no cover


def _decode_object(cls: Any, value: Any, path: str) -> Any:
    if not isinstance(value, dict):
        raise _Bad(path, f"should be an object, not {_describe(value)}")
    kwargs = {}
    for attr, key, tp, required in _fields(cls):
        where = f"{path}.{key}" if path else key
        if key not in value:
            if required:
                raise _Bad(where, "is missing")
            continue
        kwargs[attr] = _decode_value(tp, value[key], where)
    return cls(**kwargs)


def decode(kind: str, payload: object, seq: int | None = None) -> Event:
    """The typed event of a stored kind and payload; :class:`EventDecodeError` if they do not
    fit (unknown kind, a missing field, a field of the wrong type)."""
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise EventDecodeError(seq, kind, None, "is of an unknown kind")
    try:
        event: Event = _decode_object(cls, payload, "")
    except _Bad as bad:
        raise EventDecodeError(seq, kind, bad.path, bad.problem) from None
    return event


def to_record(stored: StoredEvent) -> EventRecord:
    """Decode a stored row; :class:`EventDecodeError` when its payload is not JSON or does not
    fit its kind."""
    try:
        payload = json.loads(stored.payload)
    except ValueError:
        raise EventDecodeError(stored.seq, stored.kind, None,
                               "has a payload that is not JSON") from None
    event = decode(stored.kind, payload, stored.seq)
    return EventRecord(stored.seq, stored.at, stored.actor, stored.subject, event, payload,
                       stored.prev_hash, stored.hash)

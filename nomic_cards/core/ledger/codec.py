"""Encode events to their JSON payloads and decode them back: the one place that knows the
stored form.

The payload of an event is a JSON object with one key per dataclass field (the key is the
field's name, or its ``json`` metadata, e.g. ``from``); a field with ``omit_default`` metadata
is left out while it holds its default. Values: ints, strings, booleans and null
as themselves; tuples as arrays; nested dataclasses as objects; datetimes as ISO 8601 strings
(``datetime.isoformat`` of the UTC time). Decoding checks every field's type and raises
:class:`EventDecodeError` naming the event number and the field.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache
from typing import Any

from nomic_cards.core.ledger.events import (
    Event,
    EventRecord,
    JsonObject,
    StoredEvent,
    core_prefixes,
    event_type,
    game_of,
    parse_time,
    utc,
)
from nomic_cards.errors import NomicCardsError


class EventDecodeError(NomicCardsError, ValueError):
    """A stored payload that does not fit its kind, or a kind no installed code decodes: names
    the event number and the field."""

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


@cache
def _omitted(cls: Any) -> dict[str, Any]:
    """attribute -> default, for the fields left out of the payload while they hold their
    default (``omit_default`` metadata: fields added later, so that an event that does not use
    them is stored as before they existed)."""
    return {f.name: f.default for f in dataclasses.fields(cls)
            if f.metadata.get("omit_default")}


def _encode_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        omit = _omitted(type(value))
        return {key: _encode_value(getattr(value, attr)) for attr, key, _t, _r in
                _fields(type(value))
                if attr not in omit or getattr(value, attr) != omit[attr]}
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


T = typing.TypeVar("T")


def to_json(value: object) -> Any:
    """A value of the types the codec knows (a dataclass of them, say) as JSON data: what a
    card game keeps as its state. :func:`from_json` gives it back equal."""
    return _encode_value(value)


class DataDecodeError(NomicCardsError, ValueError):
    """JSON data that does not fit the type it is read as: names what it is and the field."""


def from_json(cls: type[T], data: object, what: str) -> T:
    """``data`` (JSON) as a ``cls``, each field checked against its type;
    :class:`DataDecodeError` naming ``what`` and the field when it does not fit."""
    tp: Any = cls
    try:
        out: T = _decoder(tp)(data)
    except _Bad as bad:
        where = f"field {bad.path!r} of " if bad.path else ""
        raise DataDecodeError(f"{where}{what} {bad.problem}") from None
    return out


class _Bad(Exception):
    """A value that does not fit; ``path`` is filled in on the way out (``votes[0].at``)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.parts: list[str] = []

    def at(self, part: str) -> _Bad:
        self.parts.insert(0, part)
        return self

    @property
    def path(self) -> str:
        out = ""
        for part in self.parts:
            out += part if part.startswith("[") or not out else f".{part}"
        return out


def _describe(value: object) -> str:
    if value is None:
        return "null"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_datetime(tp: Any) -> bool:
    """``datetime``, also when a test's frozen clock replaced the name with a subclass."""
    return isinstance(tp, type) and any(
        c.__module__ == "datetime" and c.__name__ == "datetime" for c in tp.__mro__)


Decoder = Callable[[Any], Any]


def _scalar(kind: type, what: str) -> Decoder:
    def dec(value: Any) -> Any:
        if type(value) is kind:  # exact: a JSON true is not a whole number
            return value
        raise _Bad(f"should be {what}, not {_describe(value)}")

    return dec


def _time(value: Any) -> Any:
    if type(value) is str:
        try:
            return parse_time(value)
        except ValueError:
            pass
    raise _Bad(f"should be an ISO time, not {_describe(value)}")


def _optional(inner: Decoder) -> Decoder:
    def dec(value: Any) -> Any:
        return None if value is None else inner(value)

    return dec


def _tuple(item: Decoder) -> Decoder:
    def dec(value: Any) -> Any:
        if type(value) is not list:
            raise _Bad(f"should be a list, not {_describe(value)}")
        try:
            return tuple(map(item, value))
        except _Bad:
            for i, x in enumerate(value):
                try:
                    item(x)
                except _Bad as bad:
                    raise bad.at(f"[{i}]") from None
            raise  # pragma: no cover - the loop finds the item again

    return dec


def _mapping(item: Decoder | None) -> Decoder:
    """An object with text keys; ``item`` decodes each value (None: the values as they are)."""
    def dec(value: Any) -> Any:
        if type(value) is not dict:
            raise _Bad(f"should be an object, not {_describe(value)}")
        if item is None:
            return dict(value)
        out = {}
        for k, v in value.items():
            try:
                out[k] = item(v)
            except _Bad as bad:
                raise bad.at(str(k)) from None
        return out

    return dec


def _value_decoder(tp: Any) -> Decoder | None:
    """The decoder of a mapping's values: a type the codec decodes (text, a number, a
    dataclass...), or None for one it takes as it is (``Any``, a union of kinds)."""
    try:
        return _decoder(tp)
    except TypeError:
        return None


def _object(cls: Any) -> Decoder:
    fields = [(attr, key, _decoder(tp), required) for attr, key, tp, required in _fields(cls)]

    def dec(value: Any) -> Any:
        if type(value) is not dict:
            raise _Bad(f"should be an object, not {_describe(value)}")
        kwargs = {}
        for attr, key, field_dec, required in fields:
            if key in value:
                try:
                    kwargs[attr] = field_dec(value[key])
                except _Bad as bad:
                    raise bad.at(key) from None
            elif required:
                raise _Bad("is missing").at(key)
        return cls(**kwargs)

    return dec


@cache
def _decoder(tp: Any) -> Decoder:
    """The decoder of a field type, built once per type."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1 and type(None) in args:
            return _optional(_decoder(inner[0]))
    elif tp is int:
        return _scalar(int, "a whole number")
    elif tp is str:
        return _scalar(str, "text")
    elif tp is bool:
        return _scalar(bool, "true or false")
    elif _is_datetime(tp):
        return _time
    elif origin is tuple:
        return _tuple(_decoder(args[0]))
    elif origin in (dict, Mapping):
        return _mapping(_value_decoder(args[1]) if args else None)
    elif isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _object(tp)
    raise TypeError(f"the event codec cannot decode {tp!r}")


def decode(kind: str, payload: object, seq: int | None = None) -> Event:
    """The typed event of a stored kind and payload; :class:`EventDecodeError` if they do not
    fit (unknown kind, a missing field, a field of the wrong type)."""
    cls: Any = event_type(kind)
    if cls is None:
        game = game_of(kind)
        if game in core_prefixes():
            raise EventDecodeError(seq, kind, None, "is of an unknown kind")
        raise EventDecodeError(seq, kind, None, f"is of a kind no installed code decodes (card "
                                                f"game {game!r} is not installed)")
    try:
        event: Event = _decoder(cls)(payload)
    except _Bad as bad:
        raise EventDecodeError(seq, kind, bad.path, bad.problem) from None
    return event


def _blank(tp: Any) -> Any:
    """A JSON value that decodes as ``tp`` and says nothing: what a private field holds when an
    event is read from its public payload alone."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(tp):
        return None
    if origin is tuple:
        return []
    if origin in (dict, Mapping):
        return {}
    if _is_datetime(tp):
        return "1970-01-01T00:00:00+00:00"
    return {int: 0, str: "", bool: False}.get(tp)


def decode_public(kind: str, payload: JsonObject, seq: int | None = None) -> Event:
    """The typed event of a kind from its public payload alone, each private field a blank of
    its type (no number, empty text): what the public channels read, which may describe the
    event but never its private part. :class:`EventDecodeError` as :func:`decode`."""
    cls: Any = event_type(kind)
    blanks = {} if cls is None else {
        key: _blank(tp) for _attr, key, tp, required in _fields(cls)
        if key in cls.PRIVATE and required and key not in payload}
    return decode(kind, {**payload, **blanks}, seq)


def split(event: Event) -> tuple[JsonObject, JsonObject]:
    """An event's payload in two: the public fields and the private ones (see ``PRIVATE``)."""
    payload = encode(event)
    private = {k: payload.pop(k) for k in sorted(type(event).PRIVATE) if k in payload}
    return payload, private


def _object_text(stored: StoredEvent, text: str, what: str) -> JsonObject:
    try:
        value = json.loads(text)
    except ValueError:
        raise EventDecodeError(stored.seq, stored.kind, None,
                               f"has {what} that is not JSON") from None
    if type(value) is not dict:
        raise EventDecodeError(stored.seq, stored.kind, None,
                               f"has {what} that is not a JSON object")
    return value


def public_payload(stored: StoredEvent) -> JsonObject:
    """The public fields of a stored event; :class:`EventDecodeError` if the text is not a JSON
    object or holds a field its kind keeps private."""
    public = _object_text(stored, stored.payload, "a payload")
    cls = event_type(stored.kind)
    leaked = sorted(set(public) & cls.PRIVATE) if cls is not None else []
    if leaked:
        raise EventDecodeError(stored.seq, stored.kind, leaked[0],
                               "is private but stored in the public payload")
    return public


def to_record(stored: StoredEvent) -> EventRecord:
    """Decode a stored row, private part included; :class:`EventDecodeError` when a part is not
    JSON, a private field is missing or public, or a field does not fit its kind."""
    if stored.at is None:
        raise EventDecodeError(stored.seq, stored.kind, None, "has a stored time that is not a "
                                                              "time")
    public = public_payload(stored)
    private: JsonObject = {}
    if stored.opening is not None:
        private = _object_text(stored, stored.opening.data, "private fields")
        doubled = sorted(set(private) & set(public))
        if doubled:
            raise EventDecodeError(stored.seq, stored.kind, doubled[0],
                                   "is stored both in public and in private")
    event = decode(stored.kind, {**public, **private}, stored.seq)
    return EventRecord(stored.seq, stored.at, stored.actor, stored.subject, event, public,
                       private, stored.prev_hash, stored.hash)

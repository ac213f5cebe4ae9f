"""Parts of a manifest as frozen dataclasses: read strictly, written as plain JSON.

Each part of `manifest.json` that code reads by key - a family's section, the
`frontend`, the window - is a frozen dataclass. A field's type says which JSON
value its key takes (bool, int, float, str, `X | None`, `tuple[X, ...]` for a
list, `dict[str, X]` for an object, another such dataclass for a nested object);
`entry(...)` gives its default and what else a value must be (a range, one of
some choices, not empty, a template's placeholders, keys an object must have, a
token id of the vocabulary a sibling field sizes).

`parse` reads a JSON object into the dataclass and refuses anything else with
one coded `ModelError` naming the manifest and the key: an unknown or
misspelled key, a missing required one, a value of the wrong type or out of
range. A key read with `.get(key, default)` is what it replaces: a misspelled
key silently became its default. The writer is `dataclasses.asdict` of the same
dataclass, so writer and reader cannot disagree on a key.

What involves several fields a dataclass checks in `__post_init__` by raising
`Invalid` (a ValueError: a value built in code fails as it always did); `parse`
turns it into the same one-line error. `check(obj)` applies the field rules to
a value built in code.
"""

from __future__ import annotations

import dataclasses
import json
import string
import types
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from ..errors import Message, ModelError, render
from . import messages

T = TypeVar("T")
RULES = "tingji.schema"  # the metadata key `entry` files a field's rules under
_SHOWN = 60  # characters of a bad value quoted in an error


def entry(
    default: Any = dataclasses.MISSING,
    *,
    factory: Any = dataclasses.MISSING,
    min: float | None = None,
    max: float | None = None,
    above: float | None = None,
    choices: Iterable[Any] | None = None,
    nonempty: bool = False,
    placeholders: Iterable[str] | None = None,
    keys: Iterable[str] = (),
    id_of: str | None = None,
) -> Any:
    """A dataclass field with its rules; no default and no factory: the key is required.

    Args:
        default: the value when the key is absent.
        factory: makes the value when the key is absent (for dicts).
        min: the least value allowed (inclusive); for a list or object, of each item.
        max: the greatest value allowed (inclusive); likewise.
        above: values must be greater than this.
        choices: the only values allowed.
        nonempty: an empty string, list or object is refused.
        placeholders: a template (str.format) may use only these `{names}`.
        keys: keys an object must hold.
        id_of: the value (or each item) is a token id: below the sibling field of this name, a
            vocabulary size or a list of the classes (not checked while that field is None).
            The one declaration of which manifest fields are ids (issue 47: a CTC blank_id
            outside the vocabulary loaded and transcribed without a word).
    """
    rules: dict[str, Any] = {}
    for name, value in (("min", min), ("max", max), ("above", above)):
        if value is not None:
            rules[name] = value
    if choices is not None:
        rules["choices"] = tuple(choices)
    if nonempty:
        rules["nonempty"] = True
    if placeholders is not None:
        rules["placeholders"] = frozenset(placeholders)
    if keys:
        rules["keys"] = tuple(keys)
    if id_of is not None:
        rules["id_of"] = id_of
    return dataclasses.field(default=default, default_factory=factory, metadata={RULES: rules})


def rules(f: dataclasses.Field) -> dict[str, Any]:
    """The rules `entry` gave a field (empty for a plain field)."""
    return dict(f.metadata.get(RULES, {}))


def required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


class Invalid(ValueError):
    """A dataclass refused a value of its field `name` (raised in `__post_init__`).

    `message` is a catalogue message with the fields `path` and `key` (which
    `parse` fills in) plus `fields`.
    """

    def __init__(self, name: str, message: Message, /, **fields: object) -> None:
        self.name, self.message, self.fields = name, message, fields
        super().__init__(render(message.text, {"path": "value", "key": name, **fields}))


@cache
def field_types(cls: type) -> dict[str, Any]:
    """Each init field's type, resolved (the modules use `from __future__ import annotations`)."""
    hints = get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def parse(cls: type[T], raw: Any, *, path: Path, key: str = "") -> T:
    """The dataclass `cls` read from the JSON object `raw` (`key`: where it sits, for errors).

    Raises a ModelError naming `path` and the dotted key for the first problem found:
    unknown keys first (a misspelled key is named as written), then each field in order.
    """
    if not isinstance(raw, dict):
        raise _error(messages.KEY_NOT_OBJECT, path, key, value=shown(raw))
    known = {f.name: f for f in dataclasses.fields(cls) if f.init}
    for name in raw:
        if name not in known:
            raise ModelError(messages.UNKNOWN_KEY, path=path, key=join(key, name), known=", ".join(known))
    types_ = field_types(cls)
    values: dict[str, Any] = {}
    for name, f in known.items():
        here = join(key, name)
        if name not in raw:
            if required(f):
                raise ModelError(messages.MISSING_KEY, path=path, key=here)
            continue
        value = _value(types_[name], raw[name], path, here)
        problem = _problem(f, value)
        if problem is not None:
            message, sub, fields = problem
            raise ModelError(message, path=path, key=join(here, sub), **fields)
        values[name] = value
    problem = _id_problem(cls, lambda name: values[name] if name in values else _default(known[name]))
    if problem is not None:
        name, message, fields = problem
        fields["size_key"] = join(key, fields["size_key"])
        raise ModelError(message, path=path, key=join(key, name), **fields)
    try:
        return cls(**values)
    except Invalid as exc:
        raise ModelError(exc.message, path=path, key=join(key, exc.name), **exc.fields) from None


def check(obj: Any) -> None:
    """Apply the field rules to a dataclass built in code: `Invalid` names the first field that breaks one."""
    for f in dataclasses.fields(obj):
        problem = _problem(f, getattr(obj, f.name))
        if problem is not None:
            message, sub, fields = problem
            raise Invalid(join(f.name, sub), message, **fields)
    problem = _id_problem(type(obj), lambda name: getattr(obj, name))
    if problem is not None:
        name, message, fields = problem
        raise Invalid(name, message, **fields)


def id_fields(cls: type) -> dict[str, str]:
    """The fields of `cls` that hold token ids, each with the field that sizes its vocabulary."""
    return {f.name: r["id_of"] for f in dataclasses.fields(cls) if "id_of" in (r := rules(f))}


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else None


def _id_problem(cls: type, value_of: Callable[[str], Any]) -> tuple[str, Message, dict[str, Any]] | None:
    """The first token id of `cls` (values by `value_of`) outside its vocabulary: (key, message, fields)."""
    for name, size_key in id_fields(cls).items():
        size = value_of(size_key)
        if size is None:
            continue
        count = size if isinstance(size, int) else len(size)
        value = value_of(name)
        items = enumerate(value) if isinstance(value, tuple) else [(None, value)]
        for i, item in items:
            if item is not None and item >= count:
                return (
                    name if i is None else f"{name}[{i}]",
                    messages.ID_OUT_OF_RANGE,
                    {"value": shown(item), "least": 0, "most": count - 1, "size_key": size_key, "size": count},
                )
    return None


def join(key: str, name: str) -> str:
    if not name:
        return key
    if name.startswith("["):
        return key + name
    return f"{key}.{name}" if key else name


def shown(value: Any) -> str:
    """A JSON value as an error quotes it: compact, at most a line's worth."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _error(message: Message, path: Path, key: str, **fields: object) -> ModelError:
    return ModelError(message, path=path, key=key or "(top level)", **fields)


def _value(tp: Any, raw: Any, path: Path, key: str) -> Any:
    """`raw` as the type `tp` says, or the ModelError for a value of the wrong type."""
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        if raw is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _value(inner, raw, path, key)
    if dataclasses.is_dataclass(tp):
        return parse(tp, raw, path=path, key=key)  # type: ignore[arg-type]
    if tp is bool:
        if not isinstance(raw, bool):
            raise _error(messages.KEY_NOT_BOOL, path, key, value=shown(raw))
        return raw
    if tp is int:
        whole = isinstance(raw, int) or (isinstance(raw, float) and raw.is_integer())
        if isinstance(raw, bool) or not whole:
            raise _error(messages.KEY_NOT_INTEGER, path, key, value=shown(raw))
        return int(raw)
    if tp is float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise _error(messages.KEY_NOT_NUMBER, path, key, value=shown(raw))
        return float(raw)
    if tp is str:
        if not isinstance(raw, str):
            raise _error(messages.KEY_NOT_TEXT, path, key, value=shown(raw))
        return raw
    if origin is tuple:
        if not isinstance(raw, list):
            raise _error(messages.KEY_NOT_LIST, path, key, value=shown(raw))
        return tuple(_value(args[0], item, path, f"{key}[{i}]") for i, item in enumerate(raw))
    if origin is dict:
        if not isinstance(raw, dict):
            raise _error(messages.KEY_NOT_OBJECT, path, key, value=shown(raw))
        return {name: _value(args[1], item, path, join(key, name)) for name, item in raw.items()}
    raise TypeError(f"schema: no JSON reading for the field type {tp!r} ({key})")


def _problem(f: dataclasses.Field, value: Any) -> tuple[Message, str, dict[str, Any]] | None:
    """The first rule of `f` that `value` breaks: (message, sub-key, fields), or None."""
    r = rules(f)
    if not r or value is None:
        return None
    if r.get("nonempty") and len(value) == 0:
        return messages.KEY_EMPTY, "", {}
    for name in r.get("keys", ()):
        if name not in value:
            return messages.MISSING_KEY, name, {}
    items = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, tuple) else [("", value)]
    )
    for where, item in items:
        sub = f"[{where}]" if isinstance(where, int) else where
        problem = _item_problem(r, item)
        if problem is not None:
            return problem[0], sub, problem[1]
    return None


def _item_problem(r: dict[str, Any], item: Any) -> tuple[Message, dict[str, Any]] | None:
    if item is None:
        return None
    if "min" in r and not item >= r["min"]:
        return messages.KEY_BELOW, {"value": shown(item), "least": r["min"]}
    if "above" in r and not item > r["above"]:
        return messages.KEY_NOT_ABOVE, {"value": shown(item), "bound": r["above"]}
    if "max" in r and not item <= r["max"]:
        return messages.KEY_ABOVE, {"value": shown(item), "most": r["max"]}
    if "choices" in r and item not in r["choices"]:
        choices = ", ".join(c if isinstance(c, str) else json.dumps(c) for c in r["choices"])
        return messages.KEY_NOT_A_CHOICE, {"value": shown(item), "choices": choices}
    if "placeholders" in r:
        allowed = r["placeholders"]
        try:
            used = {name for _, name, _, _ in string.Formatter().parse(item) if name is not None}
        except ValueError:  # an unmatched brace
            used = {"{"}
        if not used <= allowed:
            return messages.KEY_PLACEHOLDERS, {
                "value": shown(item),
                "allowed": ", ".join("{" + a + "}" for a in sorted(allowed)) or "-",
            }
    return None

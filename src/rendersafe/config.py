"""Load a `Policy` from a TOML file and `RENDERSAFE_*` environment variables.

    policy = load_policy("rendersafe.toml")          # file, then environment on top
    policy = load_policy(environ={"RENDERSAFE_ALLOWED_IMAGE_HOSTS": "cdn.example.com"})

Precedence: defaults < TOML file < environment < keyword overrides. Lists in the
environment are comma-separated or a JSON array; nested settings use `__`
(`RENDERSAFE_THRESHOLDS__TEXT_WORDS=12`, `RENDERSAFE_IMAGE_PROXY__KEY=...`).

A policy file may also hold another command's table, which the policy leaves alone:
`[proxy]` is `rendersafe proxy`'s (`tool_settings("proxy")`).

Every error is a `PolicyError` naming the field and where it came from (the file or
the variable). An unknown `RENDERSAFE_*` variable is a `UserWarning` naming the
closest known one, not an error: it may belong to another tool or version.
"""

from __future__ import annotations

import difflib
import json
import os
import tomllib
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .errors import PolicyError
from .policy import ImageProxy, Policy, Thresholds

__all__ = [
    "AUDIT_KEY_ENV",
    "ENV_PREFIX",
    "FAST_PATH_ENV",
    "POLICY_FILE_ENV",
    "load_policy",
    "policy_from_env",
    "policy_from_toml",
    "policy_problems",
    "tool_settings",
]

ENV_PREFIX = "RENDERSAFE_"
POLICY_FILE_ENV = "RENDERSAFE_POLICY_FILE"
AUDIT_KEY_ENV = "RENDERSAFE_AUDIT_KEY"  # keys the audit log's URL hashes
FAST_PATH_ENV = "RENDERSAFE_FAST_PATH"  # `0`: no unit skips the pass (`units.fast`)
# Settings of the process or of the build, not of the policy: read where they act, and
# known here so that setting one does not warn.
NOT_POLICY = frozenset(
    {
        POLICY_FILE_ENV,
        AUDIT_KEY_ENV,
        FAST_PATH_ENV,
        "RENDERSAFE_MESSAGE_MEMO_CHARS",  # conversation.memo
        "RENDERSAFE_NATIVE",  # _build: `0` runs the interpreted modules
        "RENDERSAFE_BUILD_NATIVE",  # hatch_build: `0` installs without compiling
    }
)
# Tables of a policy file that belong to a command, not to the policy.
TOOL_TABLES = frozenset({"proxy"})
_NESTED: dict[str, type[Thresholds] | type[ImageProxy]] = {
    "thresholds": Thresholds,
    "image_proxy": ImageProxy,
}
# A policy file is a few kilobytes; 100,000 hosts are about 3 MB. Past this it is a mistake.
MAX_POLICY_FILE_BYTES = 32 * 1024 * 1024
# A policy is three tables deep at most; tomllib recurses on nesting, so bound it first.
MAX_NESTING = 64


def load_policy(
    path: str | Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Policy:
    """Build a policy from `path` (TOML), then the environment, then `overrides`.

    `path` defaults to `$RENDERSAFE_POLICY_FILE` when set. A path that does not
    exist is an error, never silently the defaults.
    """
    env = os.environ if environ is None else environ
    path = path if path is not None else env.get(POLICY_FILE_ENV)
    data = _read_toml(Path(path)) if path else {}
    from_env, names = _from_env(env)
    _merge(data, from_env)
    _merge(data, overrides)
    where = _origin(Path(path) if path else None, names, overrides)
    return _built(data, where)


def policy_problems(
    path: str | Path | None = None, *, environ: Mapping[str, str] | None = None
) -> tuple[Policy | None, list[str]]:
    """Check a policy as `load_policy` builds it (the file, then the environment), and
    say every error at once, not only the first: each unknown key with the setting it
    was probably meant to be, each invalid setting with where it came from. The policy,
    or None and the errors."""
    env = os.environ if environ is None else environ
    path = path if path is not None else env.get(POLICY_FILE_ENV)
    try:
        data = _read_toml(Path(path)) if path else {}
        from_env, names = _from_env(env)
    except PolicyError as exc:
        return None, [str(exc)]
    _merge(data, from_env)
    where = _origin(Path(path) if path else None, names, {})
    try:
        return _built(data, where), []
    except PolicyError as first:
        problems = [p for key, value in data.items() for p in _problems(key, value, where)]
        return None, problems or [str(first)]


def _problems(key: str, value: Any, where: Callable[[str], str]) -> list[str]:
    """What is wrong with one top-level setting, on its own."""
    source = f" ({where(key)})" if where(key) else ""
    if key not in Policy.model_fields:
        return [f"{key}: not a rendersafe setting{source}{_meant_anywhere(key)}"]
    model = _NESTED.get(key)
    if model is not None and isinstance(value, dict):
        unknown = [name for name in value if name not in model.model_fields]
        if unknown:
            return [
                f"{key}.{name}: not a setting of [{key}]{source}{_meant(name, model.model_fields)}"
                for name in unknown
            ]
    try:
        _built({key: value}, where)
    except PolicyError as exc:
        return [str(exc)]
    return []


def _meant_anywhere(name: str) -> str:
    """The top-level setting, or the setting of a table, `name` was probably meant to be."""
    tables = {field: table for table, model in _NESTED.items() for field in model.model_fields}
    close = difflib.get_close_matches(name, sorted({*Policy.model_fields, *tables}), n=1)
    if close and close[0] not in Policy.model_fields:
        return f"; did you mean '{close[0]}' in [{tables[close[0]]}]?"
    return f"; did you mean '{close[0]}'?" if close else ""


def _meant(name: str, known: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def policy_from_toml(path: str | Path) -> Policy:
    """The policy in a TOML file, ignoring the environment."""
    return _built(_read_toml(Path(path)), _origin(Path(path), {}, {}))


def tool_settings(
    name: str, path: str | Path | None = None, *, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The `[name]` table of the policy file (`path`, default `$RENDERSAFE_POLICY_FILE`),
    or {} without a file or a table."""
    env = os.environ if environ is None else environ
    path = path if path is not None else env.get(POLICY_FILE_ENV)
    if not path:
        return {}
    table = _document(Path(path)).get(name, {})
    if not isinstance(table, dict):
        raise PolicyError(name, f"[{name}] in {path} must be a table")
    return table


def policy_from_env(environ: Mapping[str, str] | None = None) -> Policy:
    """The policy given by `RENDERSAFE_*` variables alone."""
    data, names = _from_env(os.environ if environ is None else environ)
    return _built(data, _origin(None, names, {}))


def _built(data: dict[str, Any], where: Callable[[str], str]) -> Policy:
    """`Policy(**data)`, its error saying where the faulty setting came from."""
    try:
        return Policy(**data)
    except PolicyError as exc:
        message = str(exc).removeprefix(f"{exc.field}: ")
        source = where(exc.field)
        raise PolicyError(exc.field, f"{message} ({source})" if source else message) from None


def _origin(
    path: Path | None, names: Mapping[str, str], overrides: Mapping[str, Any]
) -> Callable[[str], str]:
    """Where a field's value came from: a variable, the file, or the caller ("")."""

    def where(field: str) -> str:
        top = field.partition(".")[0]
        if top in overrides:
            return ""
        name = names.get(field) or names.get(top)
        if name is not None:
            return f"from ${name}"
        return f"in {path}" if path is not None else ""

    return where


def _read_toml(path: Path) -> dict[str, Any]:
    """The policy's settings in the file at `path`."""
    return {key: value for key, value in _document(path).items() if key not in TOOL_TABLES}


def _document(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            raise PolicyError("policy file", f"{path} does not exist or is not a file")
        with path.open("rb") as handle:
            raw = handle.read(MAX_POLICY_FILE_BYTES + 1)
    except OSError as exc:
        raise PolicyError("policy file", f"{path} cannot be read: {exc.strerror}") from None
    if len(raw) > MAX_POLICY_FILE_BYTES:
        raise PolicyError("policy file", f"{path} is larger than {MAX_POLICY_FILE_BYTES} bytes")
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise PolicyError(
            "policy file", f"{path} is not UTF-8 text (byte {exc.start}): is it a TOML file?"
        ) from None
    if text.count("[") + text.count("{") > MAX_NESTING and _nesting(text) > MAX_NESTING:
        raise PolicyError("policy file", f"{path} nests deeper than {MAX_NESTING} levels")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError("policy file", f"{path} is not valid TOML: {exc}") from None
    except RecursionError:  # a nesting _nesting did not count (e.g. in a multi-line string)
        raise PolicyError("policy file", f"{path} nests too deep to read") from None
    return data.get("rendersafe", data) if isinstance(data.get("rendersafe"), dict) else data


def _nesting(text: str) -> int:
    """The depth of TOML arrays and inline tables in `text`, outside strings and
    comments (roughly: an escaped quote may end a string early)."""
    depth = deepest = 0
    quote = ""
    escaped = comment = False
    for char in text:
        if comment:
            comment = char != "\n"
        elif quote:
            if char == quote and not escaped:
                quote = ""
            escaped = char == "\\" and not escaped and quote == '"'
        elif char in "\"'":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
    return deepest


def _from_env(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The settings the variables give, and the variable that gave each field."""
    data: dict[str, Any] = {}
    names: dict[str, str] = {}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name in NOT_POLICY:
            continue
        path = name.removeprefix(ENV_PREFIX).lower().split("__")
        model = _model_for(name, path)
        if model is None:
            continue
        field = path[-1]
        annotation = str(model.model_fields[field].annotation)
        target = data
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[field] = _env_value(name, raw, annotation)
        names[".".join(path)] = name
    return data, names


def _model_for(
    name: str, path: list[str]
) -> type[Policy] | type[Thresholds] | type[ImageProxy] | None:
    """The model holding the variable's field; None (and a warning) for an unknown one."""
    model: Any = Policy
    for key in path[:-1]:
        model = _NESTED.get(key)
        if model is None:
            break
    if model is None or len(path) > 2 or path[-1] not in model.model_fields:
        close = difflib.get_close_matches(name, sorted(_known_names()), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        warnings.warn(
            f"{name} is not a rendersafe setting and is ignored{hint}", UserWarning, stacklevel=4
        )
        return None
    return model  # type: ignore[no-any-return]


def _known_names() -> set[str]:
    names = {ENV_PREFIX + f.upper() for f in Policy.model_fields} | NOT_POLICY
    for table, model in _NESTED.items():
        names |= {f"{ENV_PREFIX}{table.upper()}__{f.upper()}" for f in model.model_fields}
    return names


def _env_value(name: str, raw: str, annotation: str) -> Any:
    text = raw.strip()
    if "tuple" in annotation:
        if text.startswith("["):
            try:
                return json.loads(text)
            except (ValueError, RecursionError):
                raise PolicyError(
                    name, "starts with '[' but is not a JSON array of strings"
                ) from None
        return [item.strip() for item in text.split(",") if item.strip()]
    if text.lower() in ("none", "null") and "None" in annotation:
        return None
    return text


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> None:
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value

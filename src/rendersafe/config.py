"""Load a `Policy` from a TOML file and `RENDERSAFE_*` environment variables.

    policy = load_policy("rendersafe.toml")          # file, then environment on top
    policy = load_policy(environ={"RENDERSAFE_ALLOWED_IMAGE_HOSTS": "cdn.example.com"})

Precedence: defaults < TOML file < environment < keyword overrides. Lists in the
environment are comma-separated or a JSON array; nested settings use `__`
(`RENDERSAFE_THRESHOLDS__TEXT_WORDS=12`, `RENDERSAFE_IMAGE_PROXY__KEY=...`).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import PolicyError
from .policy import ImageProxy, Policy, Thresholds

__all__ = [
    "AUDIT_KEY_ENV",
    "ENV_PREFIX",
    "POLICY_FILE_ENV",
    "load_policy",
    "policy_from_env",
    "policy_from_toml",
]

ENV_PREFIX = "RENDERSAFE_"
POLICY_FILE_ENV = "RENDERSAFE_POLICY_FILE"
AUDIT_KEY_ENV = "RENDERSAFE_AUDIT_KEY"  # keys the audit log's URL hashes
# Settings of the process, not of the policy: ignored here.
NOT_POLICY = frozenset({POLICY_FILE_ENV, AUDIT_KEY_ENV})
_NESTED = {"thresholds": Thresholds, "image_proxy": ImageProxy}


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
    _merge(data, _from_env(env))
    _merge(data, overrides)
    return Policy(**data)


def policy_from_toml(path: str | Path) -> Policy:
    """The policy in a TOML file, ignoring the environment."""
    return Policy(**_read_toml(Path(path)))


def policy_from_env(environ: Mapping[str, str] | None = None) -> Policy:
    """The policy given by `RENDERSAFE_*` variables alone."""
    return Policy(**_from_env(os.environ if environ is None else environ))


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise PolicyError("policy file", f"{path} does not exist or is not a file")
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError("policy file", f"{path} is not valid TOML: {exc}") from None
    return data.get("rendersafe", data) if isinstance(data.get("rendersafe"), dict) else data


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name in NOT_POLICY:
            continue
        path = name.removeprefix(ENV_PREFIX).lower().split("__")
        model = _model_for(name, path)
        field = path[-1]
        annotation = str(model.model_fields[field].annotation)
        target = data
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[field] = _env_value(raw, annotation)
    return data


def _model_for(name: str, path: list[str]) -> type[Policy] | type[Thresholds] | type[ImageProxy]:
    model: Any = Policy
    for key in path[:-1]:
        model = _NESTED.get(key)
        if model is None:
            break
    if model is None or len(path) > 2 or path[-1] not in model.model_fields:
        known = ", ".join(sorted(ENV_PREFIX + f.upper() for f in Policy.model_fields))
        raise PolicyError(name, f"unknown setting; known variables: {known}")
    return model  # type: ignore[no-any-return]


def _env_value(raw: str, annotation: str) -> Any:
    text = raw.strip()
    if "tuple" in annotation:
        if text.startswith("["):
            return json.loads(text)
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

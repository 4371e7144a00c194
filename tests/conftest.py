"""Shared fixtures: one Sanitizer per fixture directory's policy."""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rendersafe import Policy, Sanitizer
from rendersafe.config import policy_from_toml


@functools.cache
def policy_for(directory: Path) -> Policy:
    """The policy in `directory/policy.toml`, or the default policy."""
    path = directory / "policy.toml"
    return policy_from_toml(path) if path.exists() else Policy()


@functools.cache
def sanitizer_for(directory: Path) -> Sanitizer:
    """A Sanitizer for the fixture directory `directory`."""
    return Sanitizer(policy_for(directory))


@pytest.fixture(autouse=True, scope="module")
def _main_module_restored() -> Iterator[None]:
    """Put `__main__` back after each test module: Streamlit's AppTest runs its script as
    `__main__`, and a process started later by spawn (Dask's workers) would run it."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main

"""Shared fixtures: one Sanitizer per fixture directory's policy."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

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

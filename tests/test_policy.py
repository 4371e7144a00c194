"""Policy validation, loading from TOML and the environment, and the documented schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rendersafe import Policy, PolicyError
from rendersafe.config import load_policy, policy_from_env, policy_from_toml

ROOT = Path(__file__).parent.parent


def test_defaults_let_no_remote_image_through() -> None:
    policy = Policy()
    assert policy.allowed_image_hosts == ()
    assert not policy.allow_data_images
    assert not policy.allow_relative_images


def test_policy_is_frozen() -> None:
    with pytest.raises(Exception, match="frozen"):
        Policy().max_images = 3  # type: ignore[misc]


def test_hosts_are_normalised() -> None:
    policy = Policy(
        allowed_image_hosts=[
            "CDN.Example.com.",
            "\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org",
            "münchen.de",
        ]
    )
    assert policy.allowed_image_hosts == ("cdn.example.com", "example.org", "xn--mnchen-3ya.de")


@pytest.mark.parametrize(
    ("settings", "field", "fix"),
    [
        ({"allowed_image_hosts": ["github.io"]}, "allowed_image_hosts", "public suffix"),
        (
            {"allowed_image_hosts": ["blob.core.windows.net"]},
            "allowed_image_hosts",
            "public suffix",
        ),
        ({"allowed_image_hosts": ["s3.amazonaws.com"]}, "allowed_image_hosts", "public suffix"),
        ({"allowed_image_hosts": ["com"]}, "allowed_image_hosts", "public suffix"),
        ({"trusted_link_hosts": ["google.com"]}, "trusted_link_hosts", "script.google.com"),
        ({"allowed_image_hosts": ["raw.githubusercontent.com"]}, "allowed_image_hosts", "anyone"),
        (
            {"allowed_image_hosts": ["https://cdn.example.com/"]},
            "allowed_image_hosts",
            "only the host",
        ),
        ({"allowed_image_hosts": ["*.example.com"]}, "allowed_image_hosts", "wildcard"),
        ({"allowed_image_hosts": ["cdn.example.com:0"]}, "allowed_image_hosts", "1 to 65535"),
        ({"allowed_image_hosts": ["cdn.example.com:65536"]}, "allowed_image_hosts", "1 to 65535"),
        ({"allowed_image_hosts": ["cdn.example.com:84a"]}, "allowed_image_hosts", "host:port"),
        ({"allowed_image_hosts": ["cdn.example.com:"]}, "allowed_image_hosts", "host:port"),
        ({"allowed_image_hosts": ["github.io:8443"]}, "allowed_image_hosts", "public suffix"),
        ({"blocked_hosts": ["evil.example:8080"]}, "blocked_hosts", "every port"),
        (
            {"blocked_hosts": ["a.example"], "allowed_image_hosts": ["a.example:8443"]},
            "allowed_image_hosts",
            "remove it from one",
        ),
        ({"allowed_link_schemes": ["javascript"]}, "allowed_link_schemes", "never allowed"),
        ({"allowed_link_schemes": ["data"]}, "allowed_link_schemes", "never allowed"),
        (
            {"blocked_hosts": ["a.example"], "trusted_link_hosts": ["a.example"]},
            "trusted_link_hosts",
            "remove it from one",
        ),
        (
            {"image_proxy": {"url": "http://p.example/", "key": "k" * 32}},
            "image_proxy.url",
            "https",
        ),
        ({"image_proxy": {"url": "https://p.example/", "key": "short"}}, "image_proxy.key", "32"),
        ({"max_images": -1}, "max_images", "greater than"),
        ({"thresholds": {"printable_ratio": 2}}, "thresholds.printable_ratio", "less than"),
        ({"colour": "red"}, "colour", "Extra inputs"),
    ],
)
def test_unsafe_or_contradictory_settings_raise_policy_error(
    settings: dict[str, object], field: str, fix: str
) -> None:
    with pytest.raises(PolicyError) as info:
        Policy(**settings)
    assert info.value.field == field
    assert fix in str(info.value)


def test_policy_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="public suffix"):
        Policy(allowed_image_hosts=["github.io"])


def test_port_entries_are_normalised() -> None:
    policy = Policy(
        allowed_image_hosts=["CDN.example.com:08443", "a.example.com:443", "b.example.com:80"],
        trusted_link_hosts=["docs.example.com:9000"],
    )
    assert policy.allowed_image_hosts == ("cdn.example.com:8443", "a.example.com", "b.example.com")
    assert policy.trusted_link_hosts == ("docs.example.com:9000",)


@pytest.mark.parametrize(
    "entry", ["windows.net", "fastly.net", "scw.cloud", "amazoncognito.com", "fedoraproject.org"]
)
def test_a_parent_of_a_private_suffix_is_accepted(entry: str) -> None:
    """Refusing these would refuse the organisations that own them; the allowlist
    admits only their own site instead (see test_urls)."""
    assert Policy(allowed_image_hosts=[entry]).allowed_image_hosts == (entry,)


def test_registrable_domain_of_a_private_suffix_is_fine() -> None:
    assert Policy(allowed_image_hosts=["me.github.io"]).allowed_image_hosts == ("me.github.io",)


def test_load_from_toml(tmp_path: Path) -> None:
    path = tmp_path / "rendersafe.toml"
    path.write_text(
        'allowed_image_hosts = ["cdn.example.com"]\nmax_images = 4\n[thresholds]\ntext_words = 12\n'
    )
    policy = policy_from_toml(path)
    assert policy.allowed_image_hosts == ("cdn.example.com",)
    assert policy.max_images == 4
    assert policy.thresholds.text_words == 12


def test_environment_overrides_toml(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('allowed_image_hosts = ["cdn.example.com"]\n[thresholds]\ntext_words = 12\n')
    env = {
        "RENDERSAFE_MAX_IMAGES": "2",
        "RENDERSAFE_THRESHOLDS__ENTROPY_BITS": "4.8",
        "RENDERSAFE_TRUSTED_LINK_HOSTS": "docs.example.com, wiki.example.com",
    }
    policy = load_policy(path, environ=env)
    assert policy.allowed_image_hosts == ("cdn.example.com",)
    assert policy.max_images == 2
    assert policy.thresholds.text_words == 12  # deep merge keeps the TOML value
    assert policy.thresholds.entropy_bits == 4.8
    assert policy.trusted_link_hosts == ("docs.example.com", "wiki.example.com")


def test_environment_lists_may_be_json() -> None:
    policy = policy_from_env(
        {"RENDERSAFE_ALLOWED_IMAGE_HOSTS": '["a.example.com", "b.example.com"]'}
    )
    assert policy.allowed_image_hosts == ("a.example.com", "b.example.com")


def test_keyword_overrides_win(tmp_path: Path) -> None:
    policy = load_policy(environ={"RENDERSAFE_MAX_IMAGES": "2"}, max_images=5)
    assert policy.max_images == 5


def test_policy_file_from_environment(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text("max_images = 7\n")
    assert load_policy(environ={"RENDERSAFE_POLICY_FILE": str(path)}).max_images == 7


def test_unknown_environment_variable_is_an_error() -> None:
    with pytest.raises(PolicyError, match="RENDERSAFE_MAX_IMAGE: unknown setting"):
        policy_from_env({"RENDERSAFE_MAX_IMAGE": "3"})


def test_missing_or_broken_policy_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="does not exist"):
        load_policy(tmp_path / "missing.toml", environ={})
    broken = tmp_path / "broken.toml"
    broken.write_text("allowed_image_hosts = [")
    with pytest.raises(PolicyError, match="not valid TOML"):
        load_policy(broken, environ={})


def test_documented_schema_is_current() -> None:
    """docs/policy.schema.json is generated from the model: regenerate it on change
    with `rendersafe policy schema > docs/policy.schema.json`."""
    documented = json.loads((ROOT / "docs" / "policy.schema.json").read_text())
    assert documented == Policy.model_json_schema()

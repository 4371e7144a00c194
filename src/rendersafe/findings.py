"""What the sanitiser changed, where and why: `Finding` and `Result`."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Action", "Construct", "Finding", "Reason", "Result"]


class Construct(StrEnum):
    """The kind of Markdown or HTML construct a finding is about."""

    IMAGE = "image"
    REFERENCE_IMAGE = "reference_image"
    LINK = "link"
    REFERENCE_LINK = "reference_link"
    AUTOLINK = "autolink"
    BARE_URL = "bare_url"
    REFERENCE_DEFINITION = "reference_definition"
    HTML = "html"
    CITATION = "citation"  # a URL a wire format carries beside the text (a source)
    RENDERED_FENCE = (
        "rendered_fence"  # a fence the UI renders as live content (detail: its language)
    )


class Action(StrEnum):
    """What was done to the construct."""

    REMOVED = "removed"
    UNLINKED = "unlinked"
    PROXIED = "proxied"
    NEUTRALISED = "neutralised"


class Reason(StrEnum):
    """Why a construct was changed. The codes are stable: alert on them."""

    IMAGE_HOST_NOT_ALLOWED = "image_host_not_allowed"
    IMAGE_PORT_NOT_ALLOWED = "image_port_not_allowed"
    AMBIGUOUS_HOST = "ambiguous_host"
    RELATIVE_IMAGE = "relative_image"
    DATA_IMAGE = "data_image"
    SCHEME_NOT_ALLOWED = "scheme_not_allowed"
    UNPARSEABLE_URL = "unparseable_url"
    BLOCKED_HOST = "blocked_host"
    INVISIBLE_CHARACTERS = "invisible_characters"
    ENCODED_BASE64 = "encoded_base64"
    ENCODED_HEX = "encoded_hex"
    PERCENT_ENCODED_RUN = "percent_encoded_run"
    URLENCODED_TEXT = "urlencoded_text"
    HIGH_ENTROPY_TOKEN = "high_entropy_token"
    SECRET_PATTERN = "secret_pattern"
    NESTED_URL = "nested_url"
    USERINFO = "userinfo"
    SUBDOMAIN_DATA = "subdomain_data"
    LONG_URL = "long_url"
    IMAGE_CAP_EXCEEDED = "image_cap_exceeded"
    HTML_TAG_NOT_ALLOWED = "html_tag_not_allowed"
    HTML_ATTRIBUTE_NOT_ALLOWED = "html_attribute_not_allowed"
    MALFORMED_HTML = "malformed_html"
    RAW_HTML_POLICY = "raw_html_policy"
    HOLD_LIMIT = "hold_limit"
    UNSETTLED = "unsettled"
    CONVERSATION_DATA = "conversation_data"
    CANARY = "canary"
    BEACON = "beacon"
    HOST_NOT_IN_CONVERSATION = "host_not_in_conversation"
    OBSERVABLE_HOST_BUDGET = "observable_host_budget"
    IMAGE_CHOICE = "image_choice"
    LAUNDERED_COPY = "laundered_copy"
    CONVERSATION_TRUNCATED = "conversation_truncated"
    # A rendered fence's own instruction to fetch or run: a Mermaid directive that changes
    # its security level or CSS, a click callback, a TeX macro that hides a URL.
    RENDERER_DIRECTIVE = "renderer_directive"


class Finding(BaseModel):
    """One change the sanitiser made to a reply.

    `line` and `column` are 1-based and point into the text that was sanitised;
    `start` and `end` are the character offsets of the changed span. `url` is a
    redacted form of the URL (values replaced by their length), never the URL itself.
    `recheck` findings come from re-checking the output (an edit exposed another
    construct); their positions point into the text after the earlier edits.
    `enforced` is False in shadow mode (`Policy(mode="monitor")`): the change was not
    made, the reply went out as it came.
    """

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    # `construct` in JSON, records and schemas; `kind` in Python, where pydantic's
    # deprecated `BaseModel.construct` owns the name (the property below reads it).
    kind: Construct = Field(alias="construct")
    action: Action
    reasons: tuple[Reason, ...]
    line: int = Field(ge=1)
    column: int = Field(ge=1)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    host: str | None = None
    url: str | None = None
    detail: str | None = None
    detector: Literal["markdown", "lexical"] = "markdown"
    recheck: bool = False
    enforced: bool = True
    context: dict[str, str] = Field(default_factory=dict)
    # The URL as the browser would resolve it: kept in memory for the audit log's
    # keyed hash, never serialised, never shown.
    full_url: str | None = Field(default=None, exclude=True, repr=False)

    @property
    def construct(self) -> Construct:  # type: ignore[override]  # see `kind`
        """The construct, by its name in JSON and records (pydantic's deprecated
        classmethod of this name is `model_construct`)."""
        return self.kind

    def summary(self) -> str:
        """One line for humans: `3:14 image removed (image_host_not_allowed) evil.example`."""
        reasons = ",".join(self.reasons)
        where = f" {self.host}" if self.host else ""
        what = f" {self.detail}" if self.detail else ""
        return f"{self.line}:{self.column} {self.kind}{what} {self.action} ({reasons}){where}"


class Result(BaseModel):
    """The sanitised text and the findings that explain every change to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def changed(self) -> bool:
        """True when the sanitiser changed anything."""
        return bool(self.findings)

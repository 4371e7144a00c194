"""rendersafe: stop LLM chat replies from leaking data through rendered Markdown.

from rendersafe import sanitize, Sanitizer, Policy
clean = sanitize(reply)                              # no remote image survives
result = Sanitizer(Policy(allowed_image_hosts=["cdn.example.com"])).run(reply)
result.text, result.findings
Sanitizer(policy).run(reply, conversation=messages)  # judge URLs with what the model saw
st.write_stream(wrap_stream(deltas, conversation=messages))  # a chat UI's generator
csp(policy)                                          # the chat page's Content-Security-Policy
"""

from ._build import __version__ as __version__  # first: it decides how the modules load
from .content_security import csp
from .conversation import Conversation, mint_canary
from .errors import InputTooLargeError, PolicyError, RenderSafeError, SanitizeError
from .findings import Action, Construct, Finding, Reason, Result
from .integrations.generators import wrap_stream
from .policy import ImageProxy, Policy, Thresholds
from .sanitizer import Sanitizer, asanitize_stream, sanitize, sanitize_stream
from .streaming import StreamSanitizer

__all__ = [
    "Action",
    "Construct",
    "Conversation",
    "Finding",
    "ImageProxy",
    "InputTooLargeError",
    "Policy",
    "PolicyError",
    "Reason",
    "RenderSafeError",
    "Result",
    "SanitizeError",
    "Sanitizer",
    "StreamSanitizer",
    "Thresholds",
    "asanitize_stream",
    "csp",
    "mint_canary",
    "sanitize",
    "sanitize_stream",
    "wrap_stream",
]

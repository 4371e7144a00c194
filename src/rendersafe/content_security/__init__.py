"""The browser's side of a policy: the Content-Security-Policy header that matches it.

header    `csp(policy)`: the header's value, from the policy's image hosts and proxy
asgi      `ContentSecurityPolicyMiddleware`: that header on an ASGI app's HTML pages
"""

from .asgi import ContentSecurityPolicyMiddleware
from .header import csp, image_sources

__all__ = ["ContentSecurityPolicyMiddleware", "csp", "image_sources"]

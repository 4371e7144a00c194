"""`RenderSafeMiddleware`: sanitise every reply a chat backend sends, streamed or not.

    from rendersafe.middleware import RenderSafeMiddleware
    app.add_middleware(RenderSafeMiddleware, policy=policy, audit=audit, paths=["/v1/*"])

A pure ASGI middleware in the shape of starlette's `GZipMiddleware`: it wraps `send`,
holds `http.response.start` until the first body message, and rewrites each body
message as it passes (server-sent events, NDJSON and text are never buffered; a JSON
body is, and gets its exact `Content-Length`). By default every response whose
content type carries text is covered; `paths` narrows that to matching paths (in any
case), `formats` pins a format per path, and `sniff` reads a covered body of no useful
content type by its first bytes rather than pass it. A body in another charset is
decoded and sent on as UTF-8.

Each response is one `rendersafe.Exchange`: `receive` is teed (the app gets every
message as it came, at once; up to `max_request_bytes` of the body are kept aside), and
when the response starts the body is read as the conversation (any shape
`rendersafe.shapes` reads), or handed to the `conversation` hook of a custom backend.

It fails closed. A covered body it cannot read (an unknown text type, an unknown
content coding, a malformed event), an exception in the app or in the sanitiser:
before the headers are sent, the response becomes a 502 with a JSON error; after,
the held text is dropped and the body ends with the format's error event. Every
finding, failure and client disconnect goes to the audit log with the request's
method, path and request id, and the context the `context` hook (or the
`context_header`) gives the request.

In shadow mode (`Policy(mode="monitor")`) every message goes on as the app sent it, at
once, whatever it holds; the same work runs on a copy (`shadow`), and its findings
and failures are recorded (`enforced: false`) and counted, never acted on.

A FastAPI app's own pages (`/docs`, `/redoc`, `/openapi.json` and the OAuth2 redirect,
wherever the app puts them) are not replies: they pass untouched.

    app        `RenderSafeMiddleware`: settings, what a request covers, its exchange
    rewriter   one response's rewriting, message by message (no sending)
    responder  enforce mode: sends what the rewriter gives, fails closed
    shadow     monitor mode: sends what the app gives, rewrites a copy
    offload    which feeds run off the event loop, in worker threads
    replies    the middleware's own answers and small helpers
    interstitial  the click-through page of `Policy.link_interstitial`, served here
"""

from .app import ContextHook, ConversationHook, RenderSafeMiddleware

__all__ = ["ContextHook", "ConversationHook", "RenderSafeMiddleware"]

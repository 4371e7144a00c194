"""`rendersafe proxy`: a reverse proxy with `RenderSafeMiddleware` inside, in front of
any OpenAI-, Anthropic- or Ollama-compatible server.

    rendersafe proxy --upstream http://127.0.0.1:11434 --listen 127.0.0.1:8787

    from rendersafe.gateway import Gateway, Settings
    app = Gateway(Settings(upstream="http://127.0.0.1:8000"), policy=Policy(), audit=None)

Every path is forwarded, to its canonical target (`target`: the path the proxy routes
on is the one the upstream gets; what cannot be made one is a 400). Chat completions,
Responses, Messages and Ollama's chat and generate replies are sanitised
(`routes.SANITISED`, in any case and spelling), and so are paths a format is pinned for;
a chat reply is never passed untouched (sniffed if its type says nothing, decoded if in
another charset). Models, embeddings, files and the rest pass byte for byte. Slow
clients are bounded in time (`protocol`). `/healthz` (degraded while the audit log
cannot write) and `/metrics` are the proxy's own. Needs the `proxy` extra (httpx,
uvicorn, prometheus_client).
"""

from .app import Gateway
from .routes import SANITISED
from .serve import bound_socket, serve, split_listen
from .settings import Settings

__all__ = ["SANITISED", "Gateway", "Settings", "bound_socket", "serve", "split_listen"]

"""`wrap_stream` in the chat UIs that render a generator, through their own test clients.

Gradio: a `ChatInterface` whose function yields the whole text so far (Gradio's
convention), launched on 127.0.0.1 and driven by `gradio_client`, streamed and not.
Streamlit: an app that renders `st.write_stream`, run by `streamlit.testing.v1.AppTest`.
The browser-facing text never holds the secret or the attacker's host, and ends as the
one-shot `sanitize()` with the conversation; honest text is unchanged.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from typing import Any

import pytest

from adapters import EXFIL, HONEST, SECRET, TOKEN, USER_SAYS, expected, need, pieces

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # nothing leaves the machine
# Gradio's and Streamlit's own servers leave sockets for the collector to close.
pytestmark = [
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


def _so_far(text: str) -> Iterator[str]:
    """A model's reply as Gradio functions yield it: the whole text so far."""
    sent = ""
    for piece in pieces(text):
        sent += piece
        yield sent


@pytest.fixture(autouse=True)
def _collected() -> Iterator[None]:
    """Collect what the UI left behind (sockets, event loops) within this module's tests,
    whose marks ignore it, not in whatever test the collector happens to run next."""
    yield
    gc.collect()


@pytest.fixture(scope="module")
def gradio_app() -> Iterator[Any]:
    gradio = need("gradio")
    client_module = need("gradio_client")
    from rendersafe import wrap_stream  # noqa: PLC0415

    def respond(message: str, history: list[dict[str, Any]]) -> Iterator[str]:
        reply = EXFIL if "chart" in message.lower() else HONEST
        conversation = [*history, {"role": "user", "content": message}]
        yield from wrap_stream(_so_far(reply), conversation=conversation, cumulative=True)

    demo = gradio.ChatInterface(respond)
    demo.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        yield client_module.Client(demo.local_url, verbose=False)
    finally:
        demo.close()
        gc.collect()


def test_gradio_streams_only_sanitised_text(gradio_app: Any) -> None:
    job = gradio_app.submit(USER_SAYS, api_name="/respond")
    job.result()
    outputs = [str(o) for o in job.outputs()]
    assert len(outputs) > 1
    assert outputs[-1] == expected(EXFIL)
    assert not any(SECRET in o or TOKEN in o or "evil.example" in o for o in outputs)


def test_gradio_leaves_honest_text_alone(gradio_app: Any) -> None:
    assert gradio_app.predict("Tell me the plan.", api_name="/respond") == HONEST


def _streamlit_app() -> None:
    import streamlit as st  # noqa: PLC0415

    from adapters import EXFIL, USER_SAYS, pieces  # noqa: PLC0415
    from rendersafe import wrap_stream  # noqa: PLC0415

    history = [{"role": "user", "content": USER_SAYS}]
    st.write_stream(wrap_stream(iter(pieces(EXFIL)), conversation=history))


def _streamlit_honest() -> None:
    import streamlit as st  # noqa: PLC0415

    from adapters import HONEST, pieces  # noqa: PLC0415
    from rendersafe import wrap_stream  # noqa: PLC0415

    st.write_stream(wrap_stream(iter(pieces(HONEST, 3))))


def _markdown(app: Any) -> str:
    need("streamlit")
    from streamlit.testing.v1 import AppTest  # noqa: PLC0415

    run = AppTest.from_function(app, default_timeout=30).run()
    assert not run.exception
    return "".join(m.value for m in run.markdown)


def test_streamlit_writes_the_sanitised_stream() -> None:
    assert _markdown(_streamlit_app) == expected(EXFIL)


def test_streamlit_writes_honest_text_unchanged() -> None:
    # Streamlit's Markdown element holds the text without its last line end.
    assert _markdown(_streamlit_honest) == HONEST.rstrip("\n")

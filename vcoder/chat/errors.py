"""The errors of the chat client: every one is a ``ChatError`` whose message says what to do."""

from __future__ import annotations

#: how to start a server, quoted when none answers
START_HINT = (
    "start one with `vllm serve MODEL --port 8000`, `trl vllm-serve --model MODEL` or `transformers serve MODEL`"
)


class ChatError(RuntimeError):
    """Base class of every error this client raises."""


class ServerUnreachable(ChatError):
    """The server could not be reached (connection refused, DNS, timeouts) after all retries."""


class UnknownModel(ChatError):
    """The server does not serve the requested model name."""


class BadResponse(ChatError):
    """The server answered, but not with an OpenAI chat-completion shape."""


class RequestFailed(ChatError):
    """The request failed with an HTTP error (4xx, or 429/5xx after all retries), or timed out on every attempt.

    Attributes:
        status: the HTTP status (None for a timeout).
        detail: what the server said about it (its error message, shortened), "" when nothing.
    """

    def __init__(self, message: str, status: int | None = None, detail: str = ""):
        super().__init__(message)
        self.status = status
        self.detail = detail

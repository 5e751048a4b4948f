"""An async client for OpenAI-compatible chat servers (vLLM, ``trl vllm-serve``, ``transformers serve``).

Shared infrastructure: the GUI agent's VLM policy, the screenshot judge and the prediction runner all talk to their
models through ``ChatClient``; ``user_message`` and ``image_data_url`` build the OpenAI message format. Modules:
``messages`` (message and URL helpers), ``errors`` (the ``ChatError`` family), ``transport`` (HTTP, retries),
``client`` (the chat API), ``endpoint`` (the ``Endpoint`` value object every served model is described by), ``watched`` (a client whose failed requests are recorded, for graders).
The other side, a small OpenAI-compatible server of a local causal LM (``vcoder serve``), is ``vcoder.models.server``:
it loads models through ``vcoder.models.loading``.
"""

from vcoder.chat.client import ChatClient, ChatResponse, connect
from vcoder.chat.endpoint import Endpoint
from vcoder.chat.errors import BadResponse, ChatError, RequestFailed, ServerUnreachable, UnknownModel
from vcoder.chat.messages import image_data_url, normalize_base_url, user_message
from vcoder.chat.watched import WatchedClient

__all__ = [
    "BadResponse",
    "ChatClient",
    "ChatError",
    "ChatResponse",
    "Endpoint",
    "RequestFailed",
    "ServerUnreachable",
    "UnknownModel",
    "WatchedClient",
    "connect",
    "image_data_url",
    "normalize_base_url",
    "user_message",
]

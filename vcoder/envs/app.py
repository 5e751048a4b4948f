"""The OpenEnv app as OpenEnv's containers run it: ``uvicorn vcoder.envs.app:app --host 0.0.0.0 --port 8000``.

The setting comes from ``VCODER_ENV_SETTING`` (``refine``, default; ``site``; ``browse``), the session limit from
``VCODER_ENV_MAX_SESSIONS`` (default 4). ``vcoder serve-env`` is the same app with flags (and a free port on 0).
"""

from __future__ import annotations

import os

from vcoder.envs.openenv_server import make_app

app = make_app(
    os.environ.get("VCODER_ENV_SETTING", "refine"),
    max_sessions=int(os.environ.get("VCODER_ENV_MAX_SESSIONS", "4")),
)

"""``vcoder serve-env SETTING``: one of vcoder's environments over OpenEnv's HTTP/WebSocket protocol."""

from __future__ import annotations

import argparse
import logging
import socket
import sys

DESCRIPTION = """Serve a vcoder environment (refine: screenshot-to-HTML refinement; site: site building; browse:
web browsing on the hermetic sites) with OpenEnv's own server (openenv-core): POST /reset, POST /step, GET /state,
GET /schema, WS /ws. Each WebSocket client is one session with its own episode; every page renders in vcoder's
hermetic Chromium pool (a fresh origin per episode, no network, render deadlines, dialogs dismissed). Drive it
with any OpenEnv client, e.g. openenv.core.GenericEnvClient(base_url="http://HOST:PORT"). Actions are
{"tool": NAME, "arguments": {...}}: refine: render(html); site: write_file(path, content), delete_file(path),
build(finish=false); browse: act(action). See docs/environments.md."""


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="serve a vcoder environment (refine, site, browse) over OpenEnv's protocol",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("setting", choices=("refine", "site", "browse"), help="which environment")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--max-sessions", type=int, default=4, help="concurrent sessions (episodes) served (default 4)")
    p.add_argument("--step-timeout", type=float, default=120.0, help="seconds one step may take (default 120)")
    p.add_argument("--rewards", default="visual", help="refine: vcoder reward names of the mix (default visual)")
    p.add_argument("--max-turns", type=int, default=5, help="refine and site: renders/turns per episode (default 5)")
    p.set_defaults(func=run)


def _error(message: str, code: int = 2) -> int:
    print(f"vcoder serve-env: error: {message}", file=sys.stderr)
    return code


def run(args) -> int:
    if not 0 <= args.port <= 65535:
        return _error(f"--port {args.port} must be in 0..65535")
    if args.max_sessions < 1 or args.step_timeout <= 0 or args.max_turns < 1:
        return _error("--max-sessions, --step-timeout and --max-turns must be positive")
    try:
        import uvicorn

        from vcoder.envs.openenv_server import make_app
    except ImportError as exc:
        return _error(f"{exc.name or exc} is not installed: pip install 'vcoder[envs]' (see docs/environments.md)")
    settings = None
    try:
        if args.setting == "refine":
            from vcoder.envs.refine import RefineSettings

            rewards = tuple(n.strip() for n in args.rewards.split(",") if n.strip())
            settings = RefineSettings(rewards=rewards, max_turns=args.max_turns)
            from vcoder.rewards import build_rewards

            build_rewards(list(rewards))  # an unknown reward name fails here, in one line, not in the first session
        elif args.setting == "site":
            from vcoder.sites.records import EpisodeOptions

            settings = EpisodeOptions(max_turns=args.max_turns)
        app = make_app(
            args.setting, max_sessions=args.max_sessions, step_timeout_s=args.step_timeout, settings=settings
        )
    except ValueError as exc:
        return _error(str(exc).splitlines()[0])
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        return _error(f"cannot listen on {args.host}:{args.port} ({exc.strerror}); pick another --port/--host", 1)
    port = sock.getsockname()[1]
    # the one line a script waits for (the port, when --port 0 picked one)
    print(f"vcoder serve-env: {args.setting} at http://{args.host}:{port}", file=sys.stderr, flush=True)
    logging.getLogger(__name__).info("serving %s", args.setting)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws_ping_interval=None))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0

"""A build sees nothing of the host: canaries this test plants (a file in each hidden folder and in /run, unix sockets
that answer with a marker, a host process with a marker in its command line) and a vite.config.js that looks for
them everywhere a build could (/proc, the folders, connecting to the sockets) and copies what it finds into dist/.
dist/ must hold none of the markers, and the build must still work."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from tests.sites.test_build import hostile, write_project
from vcoder.sites.build import HIDDEN_FOLDERS, build_project

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("nobody")]

# what the build tries: every /proc entry and its command line, the canary files, the sockets, the folders' listings
PROBE = """
  const found = { pids: [], cmdlines: [], files: {}, sockets: {}, listings: {} };
  for (const name of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    found.pids.push(name);
    try { found.cmdlines.push(fs.readFileSync('/proc/' + name + '/cmdline', 'utf8').split('\\0').join(' ')); }
    catch (e) { found.cmdlines.push(name + ': ' + e.code); }
  }
  for (const p of FILES) {
    try { found.files[p] = fs.readFileSync(p, 'utf8'); } catch (e) { found.files[p] = e.code; }
  }
  for (const d of DIRS) {
    try { found.listings[d] = fs.readdirSync(d); } catch (e) { found.listings[d] = e.code; }
  }
  for (const p of SOCKETS) {
    found.sockets[p] = await new Promise((resolve) => {
      let got = '';
      const c = net.connect({ path: p });
      const timer = setTimeout(() => { c.destroy(); resolve('timeout: ' + got); }, 3000);
      c.on('data', (d) => { got += d; });
      c.on('end', () => { clearTimeout(timer); resolve('read: ' + got); });
      c.on('error', (e) => { clearTimeout(timer); resolve(e.code); });
    });
  }
  report('host', found);"""


class MarkerServer:
    """A unix socket (a path, or an abstract name starting with NUL) that sends ``marker`` to whoever connects."""

    def __init__(self, address: str, marker: str):
        self.address, self.marker = address, marker
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(address)
        if not address.startswith("\0"):
            os.chmod(address, 0o777)  # any user may connect: only the sandbox stands in the way
        self.sock.listen(8)
        self.hits = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            with conn:
                conn.sendall(self.marker.encode())

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        if not self.address.startswith("\0"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.address)


def dist_text(dist: Path) -> str:
    """Every file of dist/ as text (bytes decoded leniently): where a marker would show up."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(dist.rglob("*")) if p.is_file())


def test_a_build_reaches_no_host_file_socket_or_process(bolt_sandbox, tmp_path):
    token = uuid.uuid4().hex
    file_mark, socket_mark, proc_mark = (f"vcoder-canary-{kind}-{token}" for kind in ("file", "socket", "proc"))
    # a canary file in every hidden folder that exists here, in /run and in the host's /tmp
    folders = [d for d in (*HIDDEN_FOLDERS, "/run", str(tmp_path)) if os.path.isdir(d)]
    files = [os.path.join(d, f".vcoder-canary-{token}") for d in folders]
    for path in files:
        Path(path).write_text(file_mark)
        os.chmod(path, 0o644)  # world-readable: only the sandbox stands in the way
    # sockets in /run, /dev/shm, the host's /tmp, and one abstract (no file at all: the network namespace's)
    addresses = [f"/run/vcoder-canary-{token}.sock", str(tmp_path / "canary.sock"), f"\0vcoder-canary-{token}"]
    if os.path.isdir("/dev/shm"):
        addresses.append(f"/dev/shm/vcoder-canary-{token}.sock")
    servers = [MarkerServer(a, socket_mark) for a in addresses]
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", proc_mark])
    try:
        probes = {
            "FILES": files,
            "DIRS": [*folders, "/proc/1", "/var/run"],
            "SOCKETS": addresses,
        }
        body = "".join(f"\n  const {name} = {json.dumps(value)};" for name, value in probes.items()) + PROBE
        result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out")
        hits = [s.hits for s in servers]
    finally:
        process.kill()
        process.wait()
        for server in servers:
            server.close()
        for path in files:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
    assert result.ok, result.error  # the build works in the sandbox
    found = json.loads((result.dist / "host.json").read_text())
    text = dist_text(result.dist)
    for marker in (file_mark, socket_mark, proc_mark):  # (the paths the probe was given hold the token itself)
        assert marker not in text, (marker, found)
    for folder in folders:  # no canary is even listed
        assert not any(token in name for name in found["listings"][folder]), (folder, found["listings"][folder])
    assert hits == [0] * len(servers)  # no socket was even reached
    # /proc is there (node reads /proc/self) and shows the build's own processes only: no host one, not even the
    # sandbox's root shell (pid 1 of the build's namespace)
    assert found["pids"] and all("node" in c for c in found["cmdlines"]), found["cmdlines"]
    assert all(code in ("ENOENT",) for code in found["files"].values()), found["files"]
    assert set(found["sockets"].values()) <= {"ENOENT", "ECONNREFUSED"}, found["sockets"]

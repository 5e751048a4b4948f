"""The Bolt build sandbox: an offline install and a Vite build that work, and hostile projects that stay contained
(install scripts, a vite.config.js that opens sockets, writes outside the project, forks forever, fills the disk or
the memory). Each hostile config reports what it tried into public/, which Vite copies into dist/."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import uuid

import pytest

from tests.sites.bolt_apps import PACKAGE_JSON
from vcoder.sites.build import BuildLimits, build_project, modules_store

# builds run as the nobody user under one RLIMIT_NPROC: one pytest-xdist worker runs them all (scripts/test.sh)
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("nobody")]

INDEX = (
    '<!doctype html><html><body><div id="app"></div><script type="module" src="/src/main.js"></script></body></html>'
)
MAIN = "document.getElementById('app').textContent = 'built';"


def write_project(root, config: str | None = None, package_json: str = PACKAGE_JSON, **files: str):
    root.mkdir(parents=True, exist_ok=True)
    files = {"package.json": package_json, "index.html": INDEX, "src/main.js": MAIN, **files}
    if config is not None:
        files["vite.config.js"] = config
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def hostile(body: str) -> str:
    """A vite.config.js that runs ``body`` (an async function body with ``report(name, value)``) when Vite loads it."""
    return f"""import fs from 'node:fs';
import net from 'node:net';
import {{ spawn }} from 'node:child_process';
const report = (name, value) => {{
  fs.mkdirSync('public', {{ recursive: true }});
  fs.writeFileSync('public/' + name + '.json', JSON.stringify(value));
}};
export default async () => {{
{body}
  return {{}};
}};"""


def test_offline_install_and_build_give_a_static_site(bolt_sandbox, tmp_path):
    src = write_project(tmp_path / "src")
    result = build_project(src, tmp_path / "out")
    assert result.ok and result.stage is None and result.error is None, result.error
    html = (result.dist / "index.html").read_text()
    assert 'src="./assets/' in html  # --base ./: the renderer serves dist/ at any origin
    assert any(p.suffix == ".js" for p in (result.dist / "assets").iterdir())
    assert result.build_s > 0 and result.cpu_s > 0


def test_a_package_outside_the_cache_is_the_install_error_text(bolt_sandbox, tmp_path):
    deps = json.dumps({"name": "x", "dependencies": {"left-pad": "^1.3.0"}})
    result = build_project(write_project(tmp_path / "src", package_json=deps), tmp_path / "out")
    assert not result.ok and result.stage == "install" and result.dist is None
    assert "ENOTCACHED" in result.error and "left-pad" in result.error
    assert "/var/lib/vcoder" not in result.error and "\x1b[" not in result.error


def test_install_scripts_are_not_run(bolt_sandbox, tmp_path):
    tamper = "node -e \"const f=require('fs');const p=JSON.parse(f.readFileSync('package.json'));p.pwned='{}';f.writeFileSync('package.json',JSON.stringify(p))\""
    scripts = {stage: tamper.format(stage) for stage in ("preinstall", "install", "postinstall", "prepare")}
    deps = json.dumps({"name": "x", "scripts": scripts, "dependencies": {"clsx": "^2.1.0"}})
    result = build_project(write_project(tmp_path / "src", package_json=deps), tmp_path / "out", build=False)
    assert result.ok, result.error
    kept = json.loads(result.package_json)
    assert kept["dependencies"] == {"clsx": "^2.1.0"} and "pwned" not in kept


class Canary:
    """A TCP listener on the host's loopback that counts connections (it must see none)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()


def test_a_config_that_opens_sockets_reaches_nothing(bolt_sandbox, tmp_path):
    canary = Canary()
    body = f"""
  const tries = {{}};
  const attempt = (name, host, port) => new Promise((done) => {{
    const s = net.connect({{ host, port, timeout: 3000 }});
    s.on('connect', () => {{ tries[name] = 'connected'; s.destroy(); done(); }});
    s.on('error', (e) => {{ tries[name] = e.code; done(); }});
    s.on('timeout', () => {{ tries[name] = 'timeout'; s.destroy(); done(); }});
  }});
  await attempt('host_loopback', '127.0.0.1', {canary.port});
  await attempt('internet', '1.1.1.1', 80);
  try {{ await fetch('http://example.com/'); tries.fetch = 'fetched'; }} catch (e) {{ tries.fetch = String(e.cause?.code || e); }}
  report('net', tries);"""
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out")
    canary.sock.close()
    assert result.ok, result.error
    tries = json.loads((result.dist / "net.json").read_text())
    assert canary.hits == 0
    assert tries["host_loopback"] in ("ECONNREFUSED", "ENETUNREACH") and tries["internet"] == "ENETUNREACH"
    assert tries["fetch"] != "fetched"


def test_a_config_cannot_write_outside_the_project(bolt_sandbox, tmp_path):
    shared = tmp_path / "world-writable"
    shared.mkdir()
    shared.chmod(0o777)
    mark = uuid.uuid4().hex
    store = modules_store()
    entry = next(p for p in store.iterdir() if p.is_dir() and (p / "react").is_dir())
    targets = [
        f"{shared}/{mark}",
        f"/tmp/{mark}",
        f"/var/tmp/{mark}",
        f"/dev/shm/{mark}",
        f"{bolt_sandbox}/{mark}",
        f"{entry}/react/index.js",
        f"{entry}/{mark}",
        f"../{mark}",
        f"{os.path.expanduser('~')}/{mark}",
    ]
    body = f"""
  const out = {{}};
  for (const t of {json.dumps(targets)}) {{
    try {{ fs.writeFileSync(t, 'escaped'); out[t] = 'written'; }} catch (e) {{ out[t] = e.code; }}
  }}
  try {{ fs.writeFileSync('node_modules/react/index.js', 'tampered'); out.own_copy = 'written'; }} catch (e) {{ out.own_copy = e.code; }}
  report('writes', out);"""
    before = (entry / "react" / "index.js").read_text()
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out")
    assert result.ok, result.error
    tried = json.loads((result.dist / "writes.json").read_text())
    for target in (t for t in targets if mark in t):  # refused, or written to a tmpfs or overlay that is gone now
        assert not os.path.exists(target.replace("../", "/var/lib/vcoder/")), (target, tried[target])
    assert not (shared / mark).exists() and not os.path.exists(f"/tmp/{mark}")
    assert (entry / "react" / "index.js").read_text() == before  # the kept install is read through an overlay
    assert tried[f"{bolt_sandbox}/{mark}"] in ("EACCES", "ENOENT", "EROFS")


def nobody_processes() -> list[str]:
    done = subprocess.run(["ps", "-u", "65534", "-o", "pid=,args="], capture_output=True, text=True)
    return [line for line in done.stdout.splitlines() if line.strip()]


def test_a_fork_bomb_is_stopped_and_leaves_nothing_running(bolt_sandbox, tmp_path):
    body = """
  // once the bomb meets RLIMIT_NPROC a later spawn fails (EAGAIN): ignored, as a bomb would, or node dies first
  for (let i = 0; i < 4; i++)
    spawn('sh', ['-c', 'f() { f | f & }; f'], { detached: true, stdio: 'ignore' }).on('error', () => {});
  await new Promise(() => setInterval(() => {}, 1000));  // and never finish loading"""
    before = set(nobody_processes())
    t0 = time.monotonic()
    limits = BuildLimits(timeout_s=5, processes=256, run_as="65534:65534")
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out", limits=limits)
    elapsed = time.monotonic() - t0
    assert not result.ok and result.stage == "timeout" and "stopped" in result.error
    assert elapsed < 5 + 15
    time.sleep(1)
    assert set(nobody_processes()) <= before  # the PID namespace took every forked process with it


def test_a_config_that_fills_the_disk_meets_the_project_limit(bolt_sandbox, tmp_path):
    body = """
  const chunk = Buffer.alloc(16 * 1024 * 1024, 1);
  let written = 0, code = 'no limit';
  try { for (let i = 0; i < 200; i++) { fs.writeFileSync('fill' + i, chunk); written += 16; } }
  catch (e) { code = e.code; }
  for (let i = 0; i < 200; i++) fs.rmSync('fill' + i, { force: true });
  report('disk', { code, written });"""
    limits = BuildLimits(project_mb=160)
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out", limits=limits)
    assert result.ok, result.error
    disk = json.loads((result.dist / "disk.json").read_text())
    assert disk["code"] == "ENOSPC" and disk["written"] < 160


def test_a_config_that_eats_memory_fails_the_build(bolt_sandbox, tmp_path):
    body = """
  const hog = [];
  for (;;) hog.push(new Array(1 << 20).fill(Math.random()));"""
    limits = BuildLimits(memory_mb=2048)  # the smallest allowed: node's heap stops at 1 GB
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out", limits=limits)
    assert not result.ok and result.stage == "build"
    assert "JavaScript heap out of memory" in result.error, result.error


def test_an_install_that_names_packages_adds_them_from_the_cache(bolt_sandbox, tmp_path):
    deps = json.dumps({"name": "x", "dependencies": {}})
    src = write_project(tmp_path / "src", package_json=deps)
    result = build_project(src, tmp_path / "out", build=False, packages=("clsx", "--global"))
    assert result.ok, result.error
    assert list(json.loads(result.package_json)["dependencies"]) == ["clsx"]
    missing = build_project(src, tmp_path / "out2", build=False, packages=("left-pad",))
    assert not missing.ok and missing.stage == "install" and "left-pad" in missing.error


def test_processes_that_together_eat_memory_are_killed_by_the_build_cgroup(bolt_sandbox, tmp_path):
    from vcoder.sites.confine import memory_cgroup, remove_cgroup

    probe = memory_cgroup(64)
    if probe is None:
        pytest.skip("no memory cgroup on this machine: only the per-process address-space limit applies")
    remove_cgroup(probe)
    # Buffers live outside node's heap: each child stays under RLIMIT_AS, three of them are 4.5 GB together
    hog = "const a = []; for (let i = 0; i < 24; i++) a.push(Buffer.alloc(64 << 20, 1)); setTimeout(() => {}, 8000);"
    body = f"""
  const exits = await Promise.all([0, 1, 2].map(() => new Promise((done) => {{
    const child = spawn(process.execPath, ['-e', {json.dumps(hog)}], {{ stdio: 'ignore' }});
    child.on('exit', (code, signal) => done(signal || code));
  }})));
  report('memory', exits);"""
    limits = BuildLimits(total_memory_mb=1024)
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out", limits=limits)
    if result.ok:
        exits = json.loads((result.dist / "memory.json").read_text())
        assert "SIGKILL" in exits  # the kernel's OOM killer took the largest ones
    else:  # or vite itself was the one killed
        assert result.stage == "build" and "more than 1024 MB" in result.error, result.error


def test_a_dist_replaced_by_a_link_is_refused_not_followed(bolt_sandbox, tmp_path):
    body = """
  return { plugins: [{ name: 'swap', closeBundle() {
    fs.mkdirSync('fake', { recursive: true });
    fs.writeFileSync('fake/index.html', '<p>fake</p>');
    fs.rmSync('dist', { recursive: true, force: true });
    fs.symlinkSync(process.cwd() + '/fake', 'dist');
  } }] };"""
    result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out")
    assert not result.ok and result.stage == "build" and "not a folder the build wrote" in result.error
    assert not os.path.lexists(tmp_path / "out" / "dist")


def test_collect_dist_never_walks_a_linked_dist(tmp_path):
    from vcoder.sites.build import collect_dist

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("x")
    (victim / "keep").symlink_to(victim / "index.html")
    out = tmp_path / "out"
    out.mkdir()
    (out / "dist").symlink_to(victim)
    assert collect_dist(out) == (None, ("dist",))
    assert (victim / "keep").is_symlink() and not os.path.lexists(out / "dist")
    (out / "dist").mkdir()
    (out / "dist" / "index.html").write_text("<p>ok</p>")
    (out / "dist" / "leak").symlink_to("/etc/hostname")
    assert collect_dist(out) == (out / "dist", ("leak",)) and sorted(os.listdir(out / "dist")) == ["index.html"]


def test_a_config_cannot_read_homes_or_work_trees(bolt_sandbox, tmp_path):
    from vcoder.sites.build import HIDDEN_FOLDERS

    here = os.path.abspath(__file__)
    # a home's npm credentials, planted here (a probe of a file that may not exist passes wherever it does not)
    npmrc = f"/root/.npmrc-vcoder-canary-{uuid.uuid4().hex}"
    with open(npmrc, "w") as handle:
        handle.write("//registry.npmjs.org/:_authToken=canary\n")
    os.chmod(npmrc, 0o644)  # world-readable: only the sandbox stands in the way
    probes = [here, npmrc, "/etc/passwd"]
    body = f"""
  const out = {{}};
  for (const p of {json.dumps(probes)}) {{
    try {{ fs.readFileSync(p); out[p] = 'read'; }} catch (e) {{ out[p] = e.code; }}
  }}
  report('reads', out);"""
    try:
        result = build_project(write_project(tmp_path / "src", hostile(body)), tmp_path / "out")
    finally:
        os.unlink(npmrc)
    assert result.ok, result.error
    reads = json.loads((result.dist / "reads.json").read_text())
    assert reads["/etc/passwd"] == "read"  # the system stays readable (node, npm and vite need it)
    assert reads[npmrc] == "ENOENT"
    if here.startswith(tuple(f"{d}/" for d in (*HIDDEN_FOLDERS, "/tmp"))):  # this checkout is hidden too
        assert reads[here] == "ENOENT"

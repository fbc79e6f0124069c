"""JupyterLab + Debian chromium harness for the browser tests (``tests/lab/``).

Starts ``jupyter lab`` from this Python's environment on 127.0.0.1 (a free port, token auth, temporary
settings, workspaces and working folder holding copies of the packaged notebooks) and drives
``/usr/bin/chromium`` with Playwright for Python (no browser download). Every request the page makes
is routed: anything not addressed to the lab server (or a data:/blob: URL) is aborted and recorded.
"""
from __future__ import annotations

import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from .paths import REPO

CHROMIUM = os.environ.get("COSTMODEL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    """A port on 127.0.0.1 that is free now. Under pytest-xdist (``make test`` runs the suite in workers) worker
    ``gwN`` of ``W`` only takes ports ``port % W == N``, so two workers that each start an emulator or a lab
    server at the same moment are never handed one port between this probe and the server's bind. (Not through
    ``bind(0)``: Linux hands out odd ports there, which would leave the even class empty.)"""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if count <= 1 or not (worker.startswith("gw") and worker[2:].isdigit()):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])
    index = int(worker[2:]) % count
    rng = random.SystemRandom()
    for _ in range(500):
        port = rng.randrange(20000, 61000)
        port -= (port - index) % count  # into this worker's class
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken
        return port
    raise RuntimeError(f"no free port on 127.0.0.1 for pytest-xdist worker {worker} of {count}")


class Lab:
    """A running JupyterLab server (``url(path)`` gives a page URL with the token)."""

    def __init__(self, work: Path, state: Path, log_path: Path) -> None:
        self.work = work
        self.port = free_port()
        self.token = secrets.token_hex(16)
        env = dict(os.environ)
        env.update({
            "JUPYTER_CONFIG_DIR": str(state / "config"),
            "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces"),
            "JUPYTER_RUNTIME_DIR": str(state / "runtime"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "PYTHONPATH": os.pathsep.join(p for p in (str(REPO),
                                                      env.get("PYTHONPATH", "")) if p),
        })
        # no "news" notification, no update check: nothing asks the server to fetch from the network
        settings = state / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "notification.jupyterlab-settings").write_text(
            '{"fetchNews": "false", "checkForUpdates": false}')
        cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
               "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={work}",
               "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               "--LabServerApp.extension_manager=readonly"]
        self._log = open(log_path, "w")  # noqa: SIM115 the server writes to it until close() stops it
        self.proc = subprocess.Popen(cmd, env=env, cwd=work, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}; log: {log_path}")
            try:
                urllib.request.urlopen(self.url("/api/status"), timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"jupyter lab did not answer within 120 s; log: {log_path}") from None
                time.sleep(0.3)

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://{self.base}{path}{sep}token={self.token}"

    def is_local(self, url: str) -> bool:
        return url.startswith((f"http://{self.base}/", f"ws://{self.base}/", "data:", "blob:", "about:"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


def copy_notebooks(work: Path) -> list[Path]:
    from costmodel.foundation.resources import NOTEBOOKS_DIR

    work.mkdir(parents=True, exist_ok=True)
    out = []
    for nb in sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        shutil.copy2(nb, work / nb.name)
        out.append(work / nb.name)
    return out


# JavaScript run in the page ------------------------------------------------------------------

JS_READY = """async () => {
  const app = window.jupyterapp;
  const w = app && app.shell.currentWidget;
  if (!w || !w.sessionContext) return false;
  await w.sessionContext.ready;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle';
}"""

JS_RUN_ALL = """async () => {
  const app = window.jupyterapp;
  const ok = await app.commands.execute('notebook:run-all-cells');
  return ok;
}"""

JS_OUTPUTS = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell, i) => ({
  index: i,
  prompt: (cell.querySelector('.jp-InputArea-prompt') || {}).textContent || '',
  outputs: [...cell.querySelectorAll('.jp-OutputArea-output')].map(o => ({
    mime: o.getAttribute('data-mime-type') || '',
    text: (o.textContent || '').slice(0, 2000),
  })),
}))"""

JS_CHARTS = """() => [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output img, .jp-Notebook .jp-OutputArea-output svg.marks, .jp-Notebook .jp-OutputArea-output canvas.marks')].map(e => ({
  tag: e.tagName.toLowerCase(),
  svg: e.tagName === 'IMG' ? (e.getAttribute('src') || '').startsWith('data:image/svg+xml') : e.tagName === 'svg',
  complete: e.tagName === 'IMG' ? e.complete : true,
  width: e.tagName === 'IMG' ? e.naturalWidth : e.getBoundingClientRect().width,
  height: e.tagName === 'IMG' ? e.naturalHeight : e.getBoundingClientRect().height,
  marks: e.tagName === 'IMG' ? ((decodeURIComponent(e.getAttribute('src') || '').match(/<path|<rect|<line|<circle/g) || []).length) : e.querySelectorAll('path, rect, line').length,
  src: e.tagName === 'IMG' ? (e.getAttribute('src') || '').length + ':' + (e.getAttribute('src') || '').slice(-200) : '',
}))"""

ERROR_WORDS = ("Traceback", "Error loading script", "MaxRowsError", "Javascript Error", "Error displaying widget",
               "Cannot display an untrusted")


def error_outputs(cells: list[dict[str, Any]]) -> list[str]:
    """Error outputs (and stderr or text saying an error happened) of the cells, one line each."""
    bad = []
    for c in cells:
        for o in c["outputs"]:
            text = o["text"]
            if o["mime"] == "application/vnd.jupyter.error" or any(w in text for w in ERROR_WORDS):
                bad.append(f"cell {c['index']}: {o['mime']}: {text[:300]}")
            elif o["mime"] == "application/vnd.jupyter.stderr" and ("Error" in text or "Warning" in text):
                bad.append(f"cell {c['index']}: stderr: {text[:300]}")
    return bad

"""Rendering: papermill executes the report notebook into a temporary folder beside the output
folder (one progress line per stage), nbconvert exports the HTML in the same process with inputs
hidden and no script, and the folder is renamed into place only when every file is written."""
from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..foundation.errors import ReportError
from ..foundation.resources import notebook_path
from ..foundation.util import require
from .params import DEFAULT_TITLE, PACKAGE_ROOT, validate_parameters

#: The report notebook shipped inside the package.
REPORT_NOTEBOOK = notebook_path("report")
#: Output files of ``costmodel report``.
OUTPUT_FILES = ("report.ipynb", "report.html", "decision.json", "adr.md")


_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style type="text/css">
.jp-RenderedHTMLCommon table.cm-table { table-layout: auto; margin-left: 0; margin-right: 0; }
.jp-RenderedHTMLCommon table.cm-table tbody tr:nth-child(odd) { background: #f7f7f7; }
.jp-RenderedHTMLCommon table.cm-table tbody tr:hover { background: #eef3fb; }
.jp-RenderedSVG svg { max-width: 100%; height: auto; }
@media print {
  @page { size: A4; margin: 12mm; }
  .jp-Cell { break-inside: avoid; }
  .jp-OutputArea-output { overflow: visible !important; }
  .jp-RenderedHTMLCommon table.cm-table { font-size: 8pt !important; }
  .jp-RenderedHTMLCommon table.cm-table td, .jp-RenderedHTMLCommon table.cm-table th { padding: 1px 3px !important; }
  .jp-RenderedHTMLCommon table.cm-table td.cm-text { min-width: 7em !important; }
  .jp-RenderedHTMLCommon table.cm-table tr { break-inside: avoid; }
}
</style>
{%- endblock extra_css -%}
{% block data_svg scoped -%}
<div class="jp-RenderedSVG jp-OutputArea-output {{ extra_class }}" data-mime-type="image/svg+xml">
{{ output.data['image/svg+xml'] }}
</div>
{%- endblock data_svg %}
"""

_EXTERNAL_RE = re.compile(
    r"""<(?:script|link|img|iframe|embed|object|source)\b[^>]*?\b(?:src|href|data)\s*=\s*["']?\s*(?:https?:)?//""",
    re.IGNORECASE,
)
_CSS_IMPORT_RE = re.compile(r"""@import\s+(?:url\()?\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""", re.IGNORECASE)


def external_references(text: str) -> list[str]:
    """Every place in an HTML page that would load something from the network (scripts, styles,
    images, frames, CSS imports). Empty for a self-contained page."""
    found = [m.group(0) for m in _EXTERNAL_RE.finditer(text)]
    found += [m.group(0) for m in _CSS_IMPORT_RE.finditer(text)]
    return found


_exporter_lock = threading.Lock()
_exporter: Any = None


def html_exporter():  # -> nbconvert.HTMLExporter
    """The offline HTML exporter (built once per process): lab template, inputs and prompts
    hidden, no require.js / MathJax / widget / mermaid scripts, SVG inlined."""
    global _exporter  # noqa: PLW0603  module-level cache
    with _exporter_lock:
        if _exporter is None:
            from ..charts import lean_imports

            with lean_imports():
                HTMLExporter = require("nbconvert", "report", "the report's HTML export").HTMLExporter

            _exporter = HTMLExporter(
                template_name="lab",
                raw_template=_TEMPLATE,
                exclude_input=True,
                exclude_input_prompt=True,
                exclude_output_prompt=True,
                embed_images=True,
            )
        return _exporter


def with_summary_first(nb: Any) -> Any:
    """A copy of the executed notebook with the verdict (and the cost robustness line beside it) repeated
    right after the title: the first output of the cell marked ``metadata.costmodel.summary``. The cells
    still run in pipeline order; only the page shows the answer first. Unchanged when there is no such
    cell or it has no output."""
    import copy

    import nbformat

    cells = list(nb.cells)
    src = next((c for c in cells if (c.get("metadata", {}).get("costmodel") or {}).get("summary")), None)
    if src is None or not src.get("outputs"):
        return nb
    out = copy.deepcopy(nb)
    head = nbformat.v4.new_markdown_cell("## Verdict\n\nThe answer first; the evidence for it follows, section by section.")
    body = nbformat.v4.new_code_cell("# the verdict cell's first output, repeated here (see costmodel.report.render)")
    body.outputs = [copy.deepcopy(src["outputs"][0])]
    body.execution_count = None
    first = 1 if cells and cells[0].get("cell_type") == "markdown" else 0
    out.cells = [*out.cells[:first], head, body, *out.cells[first:]]
    return out


def export_html(nb: Any) -> str:
    """The executed notebook as one self-contained HTML page, the verdict first (:func:`with_summary_first`).
    Raises :class:`ReportError` when the page would load anything from the network."""
    body, _resources = html_exporter().from_notebook_node(with_summary_first(nb))
    ext = external_references(body)
    if ext:
        raise ReportError(f"the exported HTML would load {len(ext)} resource(s) from the network, e.g. {ext[0][:120]!r}")
    return body


def _stage_engine(progress: Callable[[str], None] | None):  # -> papermill engine class
    from papermill.engines import NBClientEngine

    class StageEngine(NBClientEngine):
        """papermill's nbclient engine, printing one progress line per notebook stage."""

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            orig = nb_man.cell_start

            def cell_start(cell, cell_index=None, **kw):
                stage = (cell.get("metadata", {}).get("costmodel") or {}).get("stage")
                if stage and progress is not None:
                    progress(f"report: {stage}")
                return orig(cell, cell_index, **kw)

            nb_man.cell_start = cell_start
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)

    return StageEngine


def _import_papermill() -> None:
    from ..charts import lean_imports

    with lean_imports():
        require("papermill", "report", "running the report notebook")
        import papermill.engines  # noqa: F401


def execute_notebook(
    notebook: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    parameters: Mapping[str, Any],
    progress: Callable[[str], None] | None = None,
    cwd: str | os.PathLike[str] | None = None,
):  # -> NotebookNode
    """Run ``notebook`` with papermill (kernel ``python3``, i.e. this Python) and save it to
    ``output_path``. A failing cell becomes a :class:`ReportError` with the cell's error."""
    from ..charts import lean_imports

    with lean_imports():
        pm = require("papermill", "report", "running the report notebook")
        from papermill.engines import papermill_engines
        from papermill.exceptions import PapermillExecutionError

    name = f"costmodel-stages-{id(progress)}"
    papermill_engines.register(name, _stage_engine(progress))
    try:
        return pm.execute_notebook(
            str(notebook),
            str(output_path),
            parameters=dict(parameters),
            engine_name=name,
            kernel_name="python3",
            progress_bar=False,
            request_save_on_cell_execute=False,
            cwd=str(cwd) if cwd else None,
            extra_arguments=["--IPKernelApp.log_level=ERROR"],  # no transport warning on the user's terminal
            shutdown_kernel="immediate",  # the notebook is done: no graceful shutdown handshake to wait for
        )
    except PapermillExecutionError as exc:
        msg = str(exc.evalue).replace("\n", " ").strip()
        if exc.ename == "OutputError":  # the kernel could not write decision.json or the ADR: the file and the cause
            from ..foundation.errors import OutputError

            raise OutputError(msg) from None
        raise ReportError(f"the report notebook stopped at cell {exc.exec_count}: {exc.ename}: {msg}") from None
    finally:
        papermill_engines._engines.pop(name, None)


#: Loggers that report the asyncio tasks and kernel channels an interrupt leaves behind
#: ("Task exception was never retrieved ... DeadKernelError").
_NOISY_LOGGERS = ("asyncio", "papermill", "nbclient", "traitlets", "jupyter_client")


def _drop_record(record: logging.LogRecord) -> bool:
    return False


def quiet_shutdown() -> None:
    """After Ctrl-C: silence what the interrupted kernel client leaves behind (pending asyncio tasks
    that fail with DeadKernelError when collected, coroutines never awaited, KeyboardInterrupt in
    callbacks Python ignores), so the CLI's one line is all the user sees. Idempotent; other
    warnings and unraisable errors still reach their usual hooks."""
    for name in _NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if _drop_record not in logger.filters:
            logger.addFilter(_drop_record)
    warnings.filterwarnings("ignore", message=r"coroutine .* was never awaited", category=RuntimeWarning)
    prev = sys.unraisablehook
    if getattr(prev, "_costmodel_quiet", False):
        return

    def hook(unraisable: Any) -> None:
        exc = unraisable.exc_type
        if exc is not None and (issubclass(exc, (KeyboardInterrupt, RuntimeWarning))
                                or exc.__name__ in ("DeadKernelError", "CancelledError")):
            return
        prev(unraisable)

    hook._costmodel_quiet = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


@dataclass
class ReportResult:
    """What ``costmodel report`` wrote."""

    out_dir: str
    files: dict[str, str]
    verdict: str | None
    title: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: Entries a previous report folder may hold besides :data:`OUTPUT_FILES`, all made by tools rather
#: than by a person: JupyterLab's checkpoints of an opened report, and file managers' metadata.
REPORT_BYPRODUCTS = (".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "desktop.ini")


def _report_entry(name: str) -> bool:
    """True for what a previous report folder may hold (:data:`OUTPUT_FILES`, :data:`REPORT_BYPRODUCTS`,
    macOS ``._`` companions of the report files): ``--force`` may replace such a folder."""
    if name in OUTPUT_FILES or name in REPORT_BYPRODUCTS:
        return True
    return name.startswith("._") and name[2:] in OUTPUT_FILES


def check_output_dir(out_dir: str | os.PathLike[str], force: bool, inputs: Sequence[str] = ()) -> Path:
    """The output folder, checked before anything runs.

    Refused: a file; the current folder or one above it; a folder that contains an input file; a
    folder holding anything but a previous report (:data:`OUTPUT_FILES`, JupyterLab checkpoints,
    file-manager metadata), with or without ``force`` (``force`` replaces a report, never a folder
    of other files); a previous report without ``force``. The messages agree: a folder that
    ``--force`` would not replace is never answered with "pass --force".
    """
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise ReportError(f"output {d} exists and is not a folder")
    full = d.resolve()
    cwd = Path.cwd().resolve()
    if full == cwd or full in cwd.parents:
        raise ReportError(f"output folder {d} is the current folder or above it; name a new folder, e.g. -o reports")
    for path in inputs:
        if full in Path(path).resolve().parents:
            raise ReportError(f"output folder {d} contains the input {path}; write the report elsewhere")
    if d.is_dir():
        entries = sorted(p.name for p in d.iterdir())
        foreign = [e for e in entries if not _report_entry(e)]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise ReportError(
                f"output folder {d} exists and holds files that are not part of a report ({shown}); "
                "--force only replaces a previous report: choose another folder"
            )
        if entries and not force:
            raise ReportError(f"output folder {d} exists and is not empty (a previous report); pass --force to replace it")
    return d


class OutputClaim:
    """An exclusive claim on an output folder while a report is made: ``.NAME.lock`` beside it, held
    with ``flock``. Exactly one of several concurrent ``costmodel report -o NAME`` gets it; the others
    get an :class:`~costmodel.foundation.errors.OutputError` saying the folder is taken (by which process).

    The kernel drops a ``flock`` when its holder dies (even by SIGKILL), so a lock file left by a
    killed run never blocks the next one; the file is removed on release. ``acquire`` re-checks that
    the locked file is still the one at the path (a release may have removed it meanwhile).
    """

    def __init__(self, dest: Path) -> None:
        self.dest = dest
        self.path = dest.parent / f".{dest.name}.lock"
        self.fd: int | None = None

    def acquire(self) -> OutputClaim:
        import fcntl

        from ..foundation.errors import OutputError
        from ..foundation.safeio import writing

        for _attempt in range(100):
            with writing(self.dest, action="create the output folder"):
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                             0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = ""
                with contextlib.suppress(OSError, ValueError, IndexError):  # empty: the holder has not written it yet
                    pid = int(os.pread(fd, 32, 0).decode().split()[0])
                    holder = f" (pid {pid})"
                os.close(fd)
                raise OutputError(
                    f"output folder {self.dest} is taken: another costmodel report{holder} is writing it "
                    "right now; wait for it to finish or choose another folder", path=str(self.dest)) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # released and removed between our open and our lock: try again
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self.fd = fd
            return self
        raise OutputError(f"output folder {self.dest}: could not take its lock {self.path}")  # pragma: no cover

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # while still holding it: nobody can lock this inode and think it is theirs
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> OutputClaim:  # noqa: PYI034  no typing.Self on 3.10
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _process_children() -> set[int]:
    """Process ids whose parent is this process (Linux /proc; empty elsewhere)."""
    me = os.getpid()
    out: set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(me):
            out.add(int(name))
    return out


def _kernel_connection_file(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().decode("utf-8", "replace").split("\0")
    except OSError:
        return None
    if not any("ipykernel" in a for a in argv):
        return None
    for i, a in enumerate(argv[:-1]):
        if a == "-f" and argv[i + 1].endswith(".json"):
            return argv[i + 1]
    return ""


def stop_kernels(pids: set[int], timeout_s: float = 3.0) -> list[int]:
    """Stop the Jupyter kernels among ``pids`` (children of this process): SIGTERM, SIGKILL after
    ``timeout_s``, reaped, connection files removed. Returns the pids stopped."""
    import time

    kernels = {}
    for pid in pids:
        conn = _kernel_connection_file(pid)
        if conn is not None:
            kernels[pid] = conn
    for pid in kernels:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    pending = set(kernels)
    while pending:
        for pid in list(pending):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                pending.discard(pid)
        if not pending:
            break
        if time.monotonic() > deadline:
            for pid in pending:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            for pid in pending:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            break
        time.sleep(0.02)
    for conn in kernels.values():
        if conn:
            with contextlib.suppress(OSError):
                os.unlink(conn)
    return sorted(kernels)


class _Worker(threading.Thread):
    """Runs the notebook off the main thread, so the main thread keeps its signal handlers (nbclient
    installs asyncio signal handlers of its own in the thread that runs it, replacing ours)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        super().__init__(name="costmodel-report-notebook", daemon=True)
        self._fn = fn
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        import asyncio

        try:
            self.result = self._fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            self.error = exc
        finally:
            with contextlib.suppress(Exception):
                loop = asyncio.get_event_loop_policy().get_event_loop()
                if not loop.is_running():
                    loop.close()  # nbclient's per-thread loop: its selector and self-pipe are file descriptors


def render_report(
    colocated: Sequence[str | os.PathLike[str]],
    remote: Sequence[str | os.PathLike[str]],
    scenario: str | os.PathLike[str],
    answers: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    notebook: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> ReportResult:
    """Execute the report notebook and write ``out_dir/{report.ipynb, report.html, decision.json,
    adr.md}``.

    The output folder is claimed first (:class:`OutputClaim`: a concurrent run on the same folder
    gets an OutputError saying it is taken), then built in a temporary folder beside ``out_dir``
    and renamed into place only when every file is written; on any failure (bad input, a failing
    cell, a full disk, SIGINT/SIGTERM/SIGHUP) nothing is left behind (temporary folder, claim,
    kernel, its connection file, parent folders it created) and an existing ``out_dir`` is
    untouched. ``options`` are further notebook parameters (``metric``, ``margin``,
    ``monte_carlo_n``, ``seed``, ``title``, ``date``). Raises :class:`ReportError` (or the package
    error of the stage that failed) for bad input, :class:`~costmodel.foundation.errors.OutputError` when the
    output cannot be written, :class:`~costmodel.foundation.signals.Interrupted` when a signal stops it.
    """
    from ..foundation.errors import OutputError
    from ..foundation.safeio import writing
    from ..foundation.signals import SignalScope

    say = progress or (lambda _m: None)
    values = {
        "colocated": [os.fspath(p) for p in colocated],
        "remote": [os.fspath(p) for p in remote],
        "scenario": os.fspath(scenario),
        "answers": os.fspath(answers),
        **options,
    }
    params = validate_parameters(**values)
    _check_yaml_inputs(params)
    inputs = [*params.colocated, *params.remote, params.scenario, params.answers]
    dest = check_output_dir(out_dir, force, inputs).resolve()
    nb_path = Path(notebook) if notebook else REPORT_NOTEBOOK
    if not nb_path.is_file():
        raise ReportError(f"report notebook {nb_path} not found")

    made: list[Path] = []  # parent folders this run creates (removed again on failure when empty)
    tmp: Path | None = None
    claim = OutputClaim(dest)
    with SignalScope(on_signal=quiet_shutdown) as signals:
        try:
            with writing(dest, action="create the output folder"):
                for parent in reversed([dest.parent, *dest.parent.parents]):
                    if not parent.exists():
                        parent.mkdir()
                        made.append(parent)
            claim.acquire()
            check_output_dir(out_dir, force, inputs)  # again, under the claim: what another run did meanwhile counts
            say("report: inputs checked")
            _import_papermill()  # first, in this thread: concurrent imports of shared modules can deadlock
            warm = threading.Thread(target=html_exporter, daemon=True)  # import nbconvert while the kernel runs
            warm.start()
            with writing(dest, action="create the output folder"):
                tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
            names = {str(tmp): str(dest)}
            nb_params = dict(params.to_dict().items())
            nb_params["decision_path"] = str(tmp / "decision.json")
            nb_params["adr_path"] = str(tmp / "adr.md")
            before = _process_children()
            kernels: dict[int, str] = {}  # kernel pid -> connection file, noted while it runs

            def note_kernels() -> None:
                for pid in _process_children() - before - set(kernels):
                    conn = _kernel_connection_file(pid)
                    if conn is not None:
                        kernels[pid] = conn

            worker = _Worker(lambda: execute_notebook(nb_path, cast(Path, tmp) / "report.ipynb", nb_params, progress=say,
                                                      cwd=PACKAGE_ROOT))
            try:
                worker.start()
                signals.wait(worker, tick=note_kernels)
            except BaseException:
                with signals.deferred():
                    quiet_shutdown()
                    stop_kernels(_process_children() - before)
                    worker.join(5.0)  # the notebook's thread sees its kernel gone and stops writing
                    for conn in kernels.values():  # a kernel that had already exited leaves its file to its client
                        if conn:
                            with contextlib.suppress(OSError):
                                os.unlink(conn)
                raise
            if worker.error is not None:
                if isinstance(worker.error, OutputError):
                    msg = str(worker.error).replace(str(tmp), str(dest))
                    raise OutputError(msg, path=str(dest), errno=worker.error.errno) from None
                if isinstance(worker.error, OSError):
                    with writing(dest / "report.ipynb", rename=names):
                        raise worker.error
                raise worker.error
            nb = worker.result
            signals.check()
            say("report: exporting HTML (inputs hidden, offline)")
            warm.join()
            record = json.loads((tmp / "decision.json").read_text(encoding="utf-8")) \
                if (tmp / "decision.json").is_file() else {}
            nb.metadata["title"] = str(record.get("title") or params.title or DEFAULT_TITLE)  # as the kernel chose it
            page = export_html(nb)
            with writing(dest / "report.html", rename=names):
                (tmp / "report.html").write_text(page, encoding="utf-8")
            for name in OUTPUT_FILES:
                if not (tmp / name).is_file():
                    raise ReportError(f"the report notebook did not write {name}")
            with writing(dest, rename=names):
                _usual_permissions(tmp)
            signals.check()
            with signals.deferred(), writing(dest, action="rename the finished report to", rename=names):
                _swap_into_place(tmp, dest)  # the commit point: a signal now takes effect after it
            tmp = None
            signals.check()  # a signal during the rename: the report is whole, the run still ends as interrupted
        except BaseException:
            with signals.deferred():
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
                    if tmp.exists():  # something was still writing into it: once more
                        shutil.rmtree(tmp, ignore_errors=True)
                claim.release()
                for parent in reversed(made):
                    with contextlib.suppress(OSError):
                        parent.rmdir()
            raise
        finally:
            claim.release()
    say(f"report: wrote {dest}")
    return ReportResult(
        out_dir=str(dest),
        files={name: str(dest / name) for name in OUTPUT_FILES},
        verdict=record.get("verdict"),
        title=str(record.get("title", "")),
    )


def _check_yaml_inputs(params: Any) -> None:
    """The scenario YAML parsed with the bounded loader, and the answers file read and validated as
    ``costmodel decide`` reads it (items and ADR ``meta``), before a kernel starts: an alias bomb, a
    duplicate key, a syntax error, a non-UTF-8 file, an unknown item or a bad people list is one line at
    once, not a failing notebook cell. (The kernel is another process: it reads each file once more,
    once, to use it.)"""
    import yaml

    from ..contracts.answers import read_answers_document
    from ..foundation.errors import ChecklistError
    from ..foundation.safeyaml import safe_load_file
    from ..foundation.util import yaml_problem

    path = params.scenario
    try:
        safe_load_file(path)
    except yaml.YAMLError as exc:
        raise ReportError(f"parameter 'scenario': {path}: {yaml_problem(exc)}") from None
    try:
        read_answers_document(params.answers)
    except ChecklistError as exc:
        raise ReportError(f"parameter 'answers': {exc}") from None


def _usual_permissions(folder: Path) -> None:
    """mkdtemp/mkstemp create private (0700/0600) entries: give the output the umask's usual modes."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(folder, 0o777 & ~umask)
    for f in folder.iterdir():
        os.chmod(f, 0o666 & ~umask)


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename ``tmp`` onto ``dest``; an existing ``dest`` is moved aside first and removed after."""
    old = None
    if dest.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
        os.rmdir(old)
        os.replace(dest, old)
    try:
        os.replace(tmp, dest)
    except BaseException:
        if old is not None:
            os.replace(old, dest)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

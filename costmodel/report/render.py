"""Rendering: papermill executes the report notebook into a temporary folder beside the output
folder (one progress line per stage), nbconvert exports the HTML in the same process with inputs
hidden and no script, and the folder is renamed into place only when every file is written."""
from __future__ import annotations

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import ReportError
from ..resources import notebook_path
from ..util import require
from .params import PACKAGE_ROOT, validate_parameters
from .stages import report_title

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
    global _exporter
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


def export_html(nb: Any) -> str:
    """The executed notebook as one self-contained HTML page. Raises :class:`ReportError` when the
    page would load anything from the network."""
    body, _resources = html_exporter().from_notebook_node(nb)
    ext = external_references(body)
    if ext:
        raise ReportError(f"the exported HTML would load {len(ext)} resource(s) from the network, e.g. {ext[0][:120]!r}")
    return body


def _stage_engine(progress: Callable[[str], None] | None):  # -> papermill engine class
    from papermill.engines import NBClientEngine

    class StageEngine(NBClientEngine):
        """papermill's nbclient engine, printing one progress line per notebook stage."""

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):  # noqa: ANN001, ANN206
            orig = nb_man.cell_start

            def cell_start(cell, cell_index=None, **kw):  # noqa: ANN001, ANN202
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
        if exc is not None and (issubclass(exc, (KeyboardInterrupt, RuntimeWarning)) or exc.__name__ in ("DeadKernelError", "CancelledError")):
            return
        prev(unraisable)

    hook._costmodel_quiet = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


class _Interrupts:
    """SIGINT while a report renders (main thread only): the first silences the shutdown noise
    (:func:`quiet_shutdown`) and raises KeyboardInterrupt; while the temporary folder is cleaned up
    further ones are only noted. :meth:`check` raises when an interrupt was swallowed on the way
    (Python ignores exceptions raised in weakref callbacks and ``__del__``), so a Ctrl-C never ends
    in a finished report."""

    def __init__(self) -> None:
        self.seen = False
        self.cleaning = False
        self._prev: Any = None
        self._installed = False

    def __enter__(self) -> "_Interrupts":
        if threading.current_thread() is threading.main_thread():
            prev = signal.getsignal(signal.SIGINT)
            if prev is signal.default_int_handler:  # leave ignored or custom handlers alone
                self._prev = prev
                signal.signal(signal.SIGINT, self._handler)
                self._installed = True
        return self

    def _handler(self, signum: int, frame: Any) -> None:  # noqa: ARG002
        self.seen = True
        quiet_shutdown()
        if not self.cleaning:
            raise KeyboardInterrupt

    def check(self) -> None:
        if self.seen:
            raise KeyboardInterrupt

    def __exit__(self, *exc: Any) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._prev)


@dataclass
class ReportResult:
    """What ``costmodel report`` wrote."""

    out_dir: str
    files: dict[str, str]
    verdict: str | None
    title: str

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def check_output_dir(out_dir: str | os.PathLike[str], force: bool, inputs: Sequence[str] = ()) -> Path:
    """The output folder, checked before anything runs.

    Refused: a file; an existing non-empty folder without ``force``; with ``force``, a folder holding
    anything but a previous report's files (``force`` replaces a report, never a folder of other
    files); the current folder or one above it; a folder that contains an input file.
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
        if entries and not force:
            raise ReportError(f"output folder {d} exists and is not empty; pass --force to replace it")
        foreign = [e for e in entries if e not in OUTPUT_FILES]
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise ReportError(
                f"output folder {d} holds files that are not part of a report ({shown}); "
                "--force only replaces a previous report: choose another folder"
            )
    return d


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

    The folder is built in a temporary folder beside ``out_dir`` and renamed into place only when
    every file is written; on any failure nothing is left behind and an existing ``out_dir`` is
    untouched. ``options`` are further notebook parameters (``metric``, ``margin``,
    ``monte_carlo_n``, ``seed``, ``title``, ``date``). Raises :class:`ReportError` (or the
    package error of the stage that failed) for bad input.
    """
    say = progress or (lambda _m: None)
    values = {
        "colocated": [os.fspath(p) for p in colocated],
        "remote": [os.fspath(p) for p in remote],
        "scenario": os.fspath(scenario),
        "answers": os.fspath(answers),
        **options,
    }
    params = validate_parameters(**values)
    dest = check_output_dir(out_dir, force, [*params.colocated, *params.remote, params.scenario, params.answers]).resolve()
    nb_path = Path(notebook) if notebook else REPORT_NOTEBOOK
    if not nb_path.is_file():
        raise ReportError(f"report notebook {nb_path} not found")
    say("report: inputs checked")

    with _Interrupts() as interrupts:
        _import_papermill()  # first, in this thread: concurrent imports of shared modules can deadlock
        warm = threading.Thread(target=html_exporter, daemon=True)  # import nbconvert while the kernel runs
        warm.start()
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
        except OSError as exc:
            raise ReportError(f"cannot create the output folder beside {dest}: {exc.strerror or exc}") from None
        try:
            nb_params = {k: v for k, v in params.to_dict().items()}
            nb_params["decision_path"] = str(tmp / "decision.json")
            nb_params["adr_path"] = str(tmp / "adr.md")
            nb = execute_notebook(nb_path, tmp / "report.ipynb", nb_params, progress=say, cwd=PACKAGE_ROOT)
            interrupts.check()
            say("report: exporting HTML (inputs hidden, offline)")
            warm.join()
            nb.metadata["title"] = report_title(params)
            page = export_html(nb)
            (tmp / "report.html").write_text(page, encoding="utf-8")
            for name in OUTPUT_FILES:
                if not (tmp / name).is_file():
                    raise ReportError(f"the report notebook did not write {name}")
            record = json.loads((tmp / "decision.json").read_text(encoding="utf-8"))
            _usual_permissions(tmp)
            interrupts.check()
            _swap_into_place(tmp, dest)
        except BaseException as exc:
            interrupts.cleaning = True
            if isinstance(exc, KeyboardInterrupt):
                quiet_shutdown()
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    say(f"report: wrote {dest}")
    return ReportResult(
        out_dir=str(dest),
        files={name: str(dest / name) for name in OUTPUT_FILES},
        verdict=record.get("verdict"),
        title=str(record.get("title", "")),
    )


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

"""The architecture decision record: a :class:`~costmodel.checklist.Decision` as MADR 4.0 Markdown.

Files are numbered like adr-tools (``NNNN-title.md``, the next free number in the folder), written
atomically and never over an existing record. Every string that comes from an input (titles, notes,
run ids, file names, evidence) is escaped, so Markdown or HTML in a note shows as text.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import re
import tempfile
import unicodedata
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundation import clock
from ..foundation.errors import ChecklistError
from ..foundation.util import finite_number
from .answer import OPTION_TITLES, _totals, chosen_option, cost_result
from .verdict import Decision

if TYPE_CHECKING:
    from ..contracts.results import CompareRecord, CostRecord

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|~^$])")
_ADR_NAME = re.compile(r"^(\d{4})-.*\.md$")
_PRODUCER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,60}")


def md_escape(text: Any) -> str:
    """``text`` as inert inline Markdown: HTML characters become entities, Markdown punctuation is
    backslash-escaped, line breaks and control characters become spaces."""
    s = "" if text is None else str(text)
    # line breaks of any kind (\n, \r, \x1c-\x1e, \x85, \u2028, ...) and other control characters -> space
    s = "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def _md_cell(text: Any) -> str:
    return md_escape(text)


def _link_target(target: str) -> str | None:
    """A link destination that cannot break out of ``(...)`` or inject HTML; None for a scheme
    other than http(s) (``javascript:`` and the like are shown as text, never linked)."""
    scheme = urllib.parse.urlsplit(str(target)).scheme
    if scheme and len(scheme) > 1 and scheme.lower() not in ("http", "https"):
        return None
    return urllib.parse.quote(str(target), safe="/:.#?=&%~+,@!-_")


def _md_link(text: str, target: str) -> str:
    dest = _link_target(target)
    return md_escape(text) if dest is None else f"[{md_escape(text)}]({dest})"


def _yaml_str(s: Any) -> str:
    return json.dumps("" if s is None else str(s), ensure_ascii=False)


def _yaml_list(values: Iterable[Any]) -> str:
    return "[" + ", ".join(_yaml_str(v) for v in values) + "]"


def _as_date(date: str | _dt.date | None) -> str:
    if date is None:
        return clock.today().isoformat()
    if isinstance(date, _dt.datetime):
        return date.date().isoformat()
    if isinstance(date, _dt.date):
        return date.isoformat()
    try:
        return _dt.date.fromisoformat(str(date)).isoformat()
    except ValueError:
        raise ChecklistError(f"date {date!r}: expected YYYY-MM-DD") from None


def default_status(decision: Decision) -> str:
    """MADR status of a drafted record: ``proposed`` whatever the verdict: a tool drafts the record,
    a person accepts it (``status=`` / ``--status accepted``)."""
    return "proposed"


def _usd(x: float | None) -> str:
    return "unknown" if x is None else f"USD {x:,.0f}"


def _relative_to(path: str, base_dir: str | os.PathLike[str] | None) -> str:
    """``path`` as a link from a record in ``base_dir`` (unchanged without one, or for a URL)."""
    if base_dir is None or urllib.parse.urlsplit(path).scheme in ("http", "https"):
        return path
    try:
        return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(base_dir))).as_posix()
    except ValueError:  # another drive on Windows
        return path


def _inputs_rows(inputs: Iterable[Any]) -> list[tuple[str, str, str, str | None]]:
    """(label, path shown, SHA-256, link target or None) per input. An entry is a path, a ``(label, path)``
    pair (shown as given, linked relative to the record's folder), a ``(label, path, shown)`` triple: the
    file at ``path`` is hashed and ``shown`` is the name written (already relative to the record's folder,
    or ``costmodel/...`` for a file bundled with the package, which is not linked), or a ``(label, path, shown,
    sha256)`` quadruple whose SHA-256 is already known (the record's, hashed as the bytes were read: not read
    again)."""
    from ..foundation import stdin

    rows: list[tuple[str, str, str, str | None]] = []
    for entry in inputs:
        shown: str | None = None
        known: str | None = None
        if isinstance(entry, (tuple, list)) and len(entry) == 4:
            label, path, shown, known = str(entry[0]), entry[1], str(entry[2]), entry[3] or None
        elif isinstance(entry, (tuple, list)) and len(entry) == 3:
            label, path, shown = str(entry[0]), entry[1], str(entry[2])
        elif isinstance(entry, (tuple, list)) and len(entry) == 2:
            label, path = str(entry[0]), entry[1]
        else:
            label, path = "input", entry
        p = Path(os.fspath(path))
        if os.fspath(path) in ("-", stdin.NAME):  # read from standard input: its name and the bytes' SHA-256
            rows.append((label, stdin.NAME, stdin.sha256() or "(standard input)", None))  # no file to link
            continue
        if known is not None:
            digest = str(known)
        elif p.is_file():
            from ..foundation.util import sha256_file

            digest = sha256_file(p)
        else:
            digest = "(file not found)"
        if shown is None:
            rows.append((label, str(path), digest, ""))
        else:
            rows.append((label, shown, digest, None if shown.startswith("costmodel/") else shown))
    return rows


def render_adr(
    decision: Decision,
    *,
    title: str,
    date: str | _dt.date | None,
    report_link: str | None = None,
    inputs: Sequence[Any] = (),
    compare: CompareRecord | Mapping[str, Any] | None = None,
    cost: CostRecord | Mapping[str, Any] | None = None,
    placement: Mapping[str, Any] | None = None,
    status: str | None = None,
    decision_makers: Sequence[str] = (),
    consulted: Sequence[str] = (),
    informed: Sequence[str] = (),
    supersedes: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    producer: str = "costmodel decide",
) -> str:
    """MADR 4.0 Markdown for ``decision``.

    ``date`` (``YYYY-MM-DD`` or a date; None means today in UTC) is injectable for reproducible
    records. ``inputs`` are paths (or ``(label, path)`` pairs) listed with their SHA-256.
    ``compare`` and ``cost`` are the results the decision used (the models, or their JSON objects as read),
    for figures in the text.
    ``base_dir`` is the folder the record will live in: input links are made relative to it
    (:func:`write_adr` passes its folder); the text still shows each path as given.
    ``producer`` is the command that wrote the record (``costmodel decide``, ``costmodel report``),
    named in the context and in what to re-run.
    Raises ChecklistError for a bad date or a producer that is not a plain command name.
    """
    day = _as_date(date)
    if not isinstance(producer, str) or not _PRODUCER.fullmatch(producer):
        raise ChecklistError(f"producer {producer!r}: expected a plain command such as 'costmodel report'")
    status = status or default_status(decision)
    cost = cost_result(cost)
    totals = _totals(cost)
    chosen = chosen_option(decision, cost)
    by_id = {r.item.id: r for r in decision.items}
    months = finite_number(cost.horizon_months) if cost is not None else None
    horizon = f" over {months:g} months" if months is not None else ""

    out: list[str] = []
    w = out.append
    w("---")
    w(f"status: {_yaml_str(status)}")
    w(f"date: {day}")
    w(f"decision-makers: {_yaml_list(decision_makers)}")
    w(f"consulted: {_yaml_list(consulted)}")
    w(f"informed: {_yaml_list(informed)}")
    w("---")
    w("")
    w(f"# {md_escape(title)}")
    w("")
    w("## Context and Problem Statement")
    w("")
    w("The GPUs we can get are in a different region from the training data. Should we train there and "
      "read the dataset across regions through a prefetching cache, replicate the dataset to the GPU "
      f"region, or wait for GPUs next to the data? This record is drafted by `{producer}` from the "
      "benchmark comparison, the cost model and the go/no-go checklist; figures below come from those "
      "inputs (listed under More Information with their SHA-256).")
    w("")
    w(f"Checklist verdict: **{decision.verdict}** "
      f"({decision.counts()['yes']} yes, {decision.counts()['no']} no, {decision.counts()['unknown']} unknown "
      f"of {len(decision.items)} items).")
    if cost is not None and "robust" in cost.model_fields_set:
        from .cost_line import cost_robustness_line

        line = cost_robustness_line(cost)
        if line:
            w("")
            w(line + ".")
    if cost is not None:
        from .answer import one_answer
        from .cost_line import wait_break_even_line

        ans = one_answer(decision, cost, placement)
        if (cost.given("recommendation") or {}).get("sentence"):
            w("")
            w(f"Recommendation: {md_escape(ans['sentence'])}")
        wait_line = wait_break_even_line(cost, str(ans.get("option") or cost.cheapest or ""))
        if wait_line:
            w("")
            w(f"Waiting instead: {md_escape(wait_line)}")
        if ans["verdict_warnings"]:
            w("")
            w("Warnings that touch the verdict:")
            w("")
            for text in ans["verdict_warnings"]:
                w(f"* {md_escape(text)}")
    w("")
    w("## Decision Drivers")
    w("")
    for r in decision.items:
        w(f"* {r.item.question} ({r.item.severity}: **{r.answer}**)")
    w("")
    w("## Considered Options")
    w("")
    for t in OPTION_TITLES.values():
        w(f"* {t}")
    w("")
    w("## Decision Outcome")
    w("")
    if decision.verdict == "GO":
        w(f"Chosen option: \"{OPTION_TITLES[chosen]}\", because every checklist item is answered yes.")
    elif decision.verdict == "CONDITIONAL":
        w(f"Chosen option: \"{OPTION_TITLES[chosen]}\", provided the conditions under Confirmation are met "
          f"first: no blocker is answered no, but {len(decision.conditions)} item(s) are unknown or unmet.")
    else:
        w(f"Chosen option: \"{OPTION_TITLES[chosen]}\", because cross-region training is blocked:")
        w("")
        for b in decision.blockers:
            w(f"* {md_escape(b['id'])}: {md_escape(b['reason'])}")
    w("")
    if decision.verdict == "NO_GO":
        pass  # the blockers above are the reasons
    else:
        support = [r for r in decision.items if r.answer == "yes"]
        if support:
            w("What supports it (answer yes; the person's note, else the evidence):")
            w("")
            for r in support:
                w(f"* {md_escape(r.item.id)}: {md_escape(r.note or r.evidence.summary)}")
    w("")
    w("### Consequences")
    w("")
    x, rp, wt = totals["cross_region"], totals["replicate"], totals["wait"]
    if chosen == "cross_region":
        if x is not None and rp is not None:
            cost_ev = by_id["cost_favourable"].evidence if "cost_favourable" in by_id else None
            if x < rp:
                kind = "Good"
            elif cost_ev is not None and cost_ev.proposed == "yes":
                kind = "Neutral"  # dearer, but by less than the materiality threshold
            else:
                kind = "Bad"
            detail = md_escape(cost_ev.summary) if cost_ev is not None and cost_ev.proposed != "unknown" else (
                f"cross-region {_usd(x)} vs replicate {_usd(rp)}{horizon}")
            w(f"* {kind}, because {detail}.")
        w("* Good, because there is no second copy of the dataset to store, sync and govern.")
        w("* Bad, because training now depends on the inter-region link and on the cache staying warm.")
        for iid in ("warmup_share", "link_headroom", "transfer_budget"):
            res = by_id.get(iid)
            if res is not None and res.evidence.proposed != "unknown":
                w(f"* Neutral, because {md_escape(res.evidence.summary)}.")
    elif chosen == "replicate":
        w(f"* Good, because training reads local data at co-located speed (replica{horizon}: {_usd(rp)}).")
        w("* Bad, because a second copy has to be stored, synced and governed.")
    else:
        w(f"* Good, because no data leaves its region (cost of waiting{horizon}: {_usd(wt)}).")
        w("* Bad, because training starts later.")
    w("")
    w("### Confirmation")
    w("")
    if decision.blockers:
        w("Revisit only if every blocker can be answered yes with evidence:")
        w("")
        for b in decision.blockers:
            w(f"* [ ] {md_escape(b['id'])}: {by_id[b['id']].item.condition}")
        w("")
    if decision.conditions:
        lead = "Also open" if decision.blockers else "Conditions to meet before adopting"
        w(f"{lead} (re-run `{producer}` with the new answers and measurements):")
        w("")
        for c in decision.conditions:
            w(f"* [ ] {md_escape(c['id'])} ({c['severity']}, now {c['answer']}): {by_id[c['id']].item.condition}")
    if not decision.blockers and not decision.conditions:
        w("Every checklist item is answered yes. Confirm in production by tracking the steady-state throughput "
          "against the co-located baseline, the cache hit ratio and the monthly transfer bill.")
    w("")
    w("## Pros and Cons of the Options")
    w("")
    thr = by_id.get("throughput_equivalent")
    reread = by_id.get("reread_fits_cache")
    for key, t in OPTION_TITLES.items():
        w(f"### {t}")
        w("")
        if key == "cross_region":
            w(f"* Neutral, because its cost{horizon} is {_usd(x)}.")
            if thr is not None and thr.evidence.proposed != "unknown":
                kind = "Good" if thr.evidence.proposed == "yes" else "Bad"
                w(f"* {kind}, because {md_escape(thr.evidence.summary)}.")
            if reread is not None and reread.evidence.proposed != "unknown":
                kind = "Good" if reread.evidence.proposed == "yes" else "Bad"
                w(f"* {kind}, because {md_escape(reread.evidence.summary)}.")
            w("* Bad, because the cold start (and any cache invalidation) pays a warm-up across the link.")
        elif key == "replicate":
            w(f"* Neutral, because its cost{horizon} is {_usd(rp)}.")
            w("* Good, because reads stay in-region: no warm-up, no dependency on the link while training.")
            w("* Bad, because the replica needs storage, a sync pipeline and its own governance.")
        else:
            w(f"* Neutral, because its cost{horizon} is {_usd(wt)}.")
            w("* Good, because nothing crosses regions.")
            w("* Bad, because the team waits for capacity.")
        w("")
    w("## More Information")
    w("")
    if supersedes:
        label = f"ADR-{supersedes[:4]}" if _ADR_NAME.match(supersedes) else supersedes
        w(f"* Supersedes {_md_link(label, supersedes)}")
    if report_link:
        w(f"* Report: {_md_link(report_link, report_link)}")
    rows = _inputs_rows(inputs)
    if rows:
        w("* Input files:")
        w("")
        w("| input | file | SHA-256 |")
        w("| --- | --- | --- |")
        for label, path, digest, target in rows:
            shown = f"`{digest}`" if not digest.startswith("(") else md_escape(digest)
            link = _relative_to(path, base_dir) if target == "" else target
            w(f"| {_md_cell(label)} | {md_escape(path) if link is None else _md_link(path, link)} | {shown} |")
    w("")
    w("Checklist as decided (answer: what counts; source: person, evidence or none):")
    w("")
    w("| item | severity | answer | source | proposed | evidence | note |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for r in decision.items:
        w(f"| {md_escape(r.item.id)} | {r.item.severity} | {r.answer} | {r.source} | {r.evidence.proposed} | "
          f"{_md_cell(r.evidence.summary)} | {_md_cell(r.note)} |")
    if decision.problems:
        w("")
        w("Answers not accepted:")
        w("")
        for p in decision.problems:
            w(f"* {md_escape(p)}")
    w("")
    from .. import __version__

    w(f"Generated by costmodel {__version__}.")
    w("")
    return "\n".join(out)


def slugify(title: str, max_len: int = 60) -> str:
    """adr-tools style file-name slug: lower case, runs of other characters become one hyphen."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(title).lower()).strip("-")
    if len(slug) > max_len:
        cut = slug[: max_len + 1]
        slug = cut[: cut.rfind("-")] if "-" in cut else slug[:max_len]
    return slug.strip("-") or "decision"


def next_number(directory: str | os.PathLike[str]) -> int:
    """The next free adr-tools number in ``directory`` (1 when it holds no ``NNNN-*.md``)."""
    d = Path(directory)
    if not d.is_dir():
        return 1
    numbers = [int(m.group(1)) for p in d.iterdir() if (m := _ADR_NAME.match(p.name))]
    return max(numbers, default=0) + 1


def find_adr(directory: str | os.PathLike[str], number: int) -> Path:
    """The record numbered ``number`` in ``directory``; ChecklistError when there is none."""
    d = Path(directory)
    found = sorted(p for p in d.glob(f"{int(number):04d}-*.md") if _ADR_NAME.match(p.name)) if d.is_dir() else []
    if not found:
        raise ChecklistError(f"{d}: no ADR numbered {int(number):04d} to supersede")
    return found[0]


_FRONT_STATUS = re.compile(r"\A(---\n(?:.*\n)*?)status:[^\n]*\n((?:.*\n)*?---\n)")


def _superseded_text(old_text: str, new_number: int) -> str | None:
    """``old_text`` with its front-matter status set to ``superseded by ADR-NNNN`` (None: no status line)."""
    m = _FRONT_STATUS.match(old_text)
    if m is None:
        return None
    line = f'status: "superseded by ADR-{new_number:04d}"\n'
    return old_text[: m.start()] + m.group(1) + line + m.group(2) + old_text[m.end():]


@contextlib.contextmanager
def _number_lock(d: Path) -> Iterator[None]:
    """An exclusive lock (``flock`` on the folder itself: no lock file is left) held while a number is picked and
    claimed; where the file system has no locks, the exclusive create in :func:`_claim` still never overwrites."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _claim(d: Path, slug: str, tmp_path: Path, text: str) -> Path:
    """Put the written record ``tmp_path`` at the next free ``NNNN-slug.md`` by exclusive create (a hard link, or
    ``O_EXCL``), never over an existing file; a number another record took meanwhile is skipped."""
    for _ in range(1000):
        n = next_number(d)
        target = d / f"{n:04d}-{slug}.md"
        try:
            os.link(tmp_path, target)
        except FileExistsError:
            continue
        except OSError as exc:  # no hard links here: exclusive create, never over an existing file
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                raise
            try:
                fd2 = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue
            try:
                with os.fdopen(fd2, "w", encoding="utf-8") as fh:
                    fh.write(text)
            except OSError:
                target.unlink(missing_ok=True)
                raise
        if len([p for p in d.glob(f"{n:04d}-*.md") if _ADR_NAME.match(p.name)]) > 1:
            target.unlink()  # a writer without the lock took this number too: the next one
            continue
        return target
    raise ChecklistError(f"{d}: could not find a free ADR number")


def write_adr(
    directory: str | os.PathLike[str],
    decision: Decision,
    *,
    title: str,
    date: str | _dt.date | None = None,
    supersedes: int | None = None,
    **kwargs: Any,
) -> Path:
    """Render the record and write it to ``directory/NNNN-<slug>.md``; returns the path.

    The number is the next free one; the file appears whole (written beside, then hard-linked into
    place, which fails rather than overwrite), so an existing record is never replaced. With
    ``supersedes=N`` (adr-tools' ``-s``), the new record links to record N and record N's status
    becomes ``superseded by ADR-<new>`` (its only change, written atomically).
    Raises ChecklistError when the folder cannot be written or record N is missing or has no status.
    """
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise ChecklistError(f"{d}: ADR folder is a file, expected a directory")
    old: Path | None = None
    if supersedes is not None:
        old = find_adr(d, supersedes)
        if _superseded_text(old.read_text(encoding="utf-8"), 0) is None:
            raise ChecklistError(f"{old}: no front-matter 'status:' line to mark as superseded")
        kwargs["supersedes"] = old.name
    kwargs.setdefault("base_dir", d)
    text = render_adr(decision, title=title, date=date, **kwargs)
    created = not d.exists()
    try:
        d.mkdir(parents=True, exist_ok=True)
        from ..foundation.leftovers import sweep

        sweep(d, ".adr.", ".tmp")  # the temporary files of killed runs (named by their process)
        fd, tmp = tempfile.mkstemp(prefix=f".adr.{os.getpid()}-", suffix=".tmp", dir=d)
    except OSError as exc:
        raise ChecklistError(f"{d}: cannot write the ADR folder: {exc.strerror or exc}") from None
    tmp_path = Path(tmp)
    target: Path | None = None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        with _number_lock(d):  # one writer at a time picks a number: two titles never share one
            target = _claim(d, slugify(title), tmp_path, text)
    except OSError as exc:
        from ..foundation.safeio import os_error_message

        if target is not None:
            target.unlink(missing_ok=True)
        tmp_path.unlink(missing_ok=True)
        if created:
            with contextlib.suppress(OSError):
                d.rmdir()  # the folder this run made, left empty: removed again
        raise ChecklistError(f"{os_error_message(exc, target or d)}; no ADR written") from None
    finally:
        tmp_path.unlink(missing_ok=True)
    if old is not None:
        from ..foundation.util import write_text_atomic

        updated = _superseded_text(old.read_text(encoding="utf-8"), int(target.name[:4]))
        if updated is not None:
            write_text_atomic(old, updated)
    return target


__all__ = [
    "OPTION_TITLES",
    "chosen_option",
    "default_status",
    "find_adr",
    "md_escape",
    "next_number",
    "render_adr",
    "slugify",
    "write_adr",
]

"""Object storage inputs: ``s3://``, ``gs://`` (``gcs://``) and ``az://`` (``abfs://``) paths through fsspec.

Every input path of ingest, fit, compare and report may be such a URL. A URL naming a prefix (a
"folder") is listed recursively, like a local folder. Objects are copied into a private temporary
folder for the readers (which need local files) and their Runs keep the URL as ``source``.
Credentials come from the provider's standard chain (environment variables, profiles, instance
metadata): nothing is configured here. ``AWS_ENDPOINT_URL`` (or ``COSTMODEL_S3_ENDPOINT_URL``) points
S3 at an S3-compatible server, ``STORAGE_EMULATOR_HOST`` GCS at an emulator (read by gcsfs), and
``AZURE_STORAGE_CONNECTION_STRING`` (or ``AZURE_STORAGE_ACCOUNT_NAME`` + ``AZURE_STORAGE_ACCOUNT_KEY``,
read by adlfs) Azure at Azurite; ``COSTMODEL_STORAGE_TIMEOUT_S`` (default 30) bounds connect and read
time of each request, and a listing as a whole to ``LIST_DEADLINE_FACTOR`` times that. Errors are one
line: missing bucket (container) or object, access denied, timeout, missing extra.
"""
from __future__ import annotations

import contextlib
import glob as _glob
import logging
import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..foundation.errors import IngestError
from ..foundation.stdin import is_stdin

_URL = re.compile(r"^(s3|s3a|gs|gcs|az|abfs|abfss)://", re.IGNORECASE)
_PROTOCOL = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "abfs", "abfs": "abfs", "abfss": "abfs"}
_EXTRA_MODULE = {"s3": "s3fs", "gcs": "gcsfs", "abfs": "adlfs"}
#: a listing (``find``) as a whole may take this many times COSTMODEL_STORAGE_TIMEOUT_S (gcsfs retries a
#: request up to 6 times with backoff, the Azure SDK 3 times: without a deadline an unreachable endpoint
#: would take minutes to report)
LIST_DEADLINE_FACTOR = 3.0


def concurrency() -> int:
    """Objects downloaded at once (``COSTMODEL_STORAGE_CONCURRENCY``, default 32): fsspec's own default
    opens a connection per object of a 1,000-object prefix at once, which servers and emulators that
    serve few connections answer with stalls (and then timeouts)."""
    from ..foundation.util import env_int

    return env_int("COSTMODEL_STORAGE_CONCURRENCY", 32)


def is_url(path: Any) -> bool:
    """True for an object-store URL (s3://, gs://, gcs://, az://, abfs://)."""
    return bool(_URL.match(str(path)))


def timeout_s() -> float:
    try:
        return float(os.environ.get("COSTMODEL_STORAGE_TIMEOUT_S", "30"))
    except ValueError:
        return 30.0


def filesystem(url: str) -> Any:
    """The fsspec filesystem for ``url`` (s3fs / gcsfs / adlfs). Raises MissingExtraError without the
    ``cloud`` extra."""
    from ..foundation.util import require

    proto = _PROTOCOL[str(url).split("://", 1)[0].lower()]
    fsspec = require("fsspec", "cloud", f"reading {proto}:// inputs")
    require(_EXTRA_MODULE[proto], "cloud", f"reading {proto}:// inputs")
    kwargs: dict[str, Any] = {}
    if proto == "s3":
        endpoint = os.environ.get("COSTMODEL_S3_ENDPOINT_URL") or os.environ.get("AWS_ENDPOINT_URL")
        t = timeout_s()
        kwargs["config_kwargs"] = {"connect_timeout": t, "read_timeout": t, "retries": {"max_attempts": 2}}
        if endpoint:
            kwargs["client_kwargs"] = {"endpoint_url": endpoint}
        kwargs["skip_instance_cache"] = True
    elif proto == "gcs":
        # gcsfs's core filesystem (the JSON API: STORAGE_EMULATOR_HOST, GOOGLE_APPLICATION_CREDENTIALS,
        # gcloud login or metadata server, else anonymous); the default "extended" class first asks the
        # gRPC control plane for each bucket's layout, which reading objects does not need. Its retry
        # messages (with tracebacks) are logged: kept off the terminal, our error says what failed.
        logging.getLogger("gcsfs").setLevel(logging.CRITICAL)
        from gcsfs.core import GCSFileSystem

        return GCSFileSystem(requests_timeout=timeout_s(), skip_instance_cache=True)
    elif proto == "abfs":
        # adlfs reads AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT_NAME with _KEY / _SAS_TOKEN,
        # else DefaultAzureCredential (environment, managed identity, Azure CLI login)
        logging.getLogger("azure").setLevel(logging.ERROR)
        t = int(max(1, round(timeout_s())))
        kwargs.update(timeout=t, connection_timeout=t, read_timeout=t, skip_instance_cache=True)
    return fsspec.filesystem(proto, **kwargs)


def _container_word(url: str) -> str:
    return "container" if _PROTOCOL.get(str(url).split("://", 1)[0].lower()) == "abfs" else "bucket"


def _call(fs: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``fs.method(*args)`` within the listing deadline: the coroutine of an async filesystem (s3fs,
    gcsfs, adlfs) run on its loop with fsspec's timeout (FSTimeoutError past it); a plain call otherwise."""
    coro = getattr(fs, "_" + method, None)
    if getattr(fs, "async_impl", False) and coro is not None and getattr(fs, "loop", None) is not None:
        from fsspec.asyn import sync

        return sync(fs.loop, coro, *args, timeout=LIST_DEADLINE_FACTOR * timeout_s(), **kwargs)
    return getattr(fs, method)(*args, **kwargs)


def _bucket_missing(fs: Any, url: str) -> bool:
    """True when the URL's bucket (container) is known not to exist; False when it exists or cannot be told."""
    try:
        return not _call(fs, "exists", _bucket(url))
    except Exception:  # noqa: BLE001 - not knowing is not an answer: the caller reports what it saw
        return False


def _bucket(url: str) -> str:
    return str(url).split("://", 1)[1].split("/", 1)[0]


def storage_error(url: str, exc: BaseException) -> IngestError:
    """A one-line IngestError for a failed object-store call (missing bucket/object, denied, timeout)."""
    text = f"{type(exc).__name__}: {exc}"
    low = text.lower()
    if ("nocredentials" in low or "unable to locate credentials" in low or "defaultcredentialserror" in low
            or "must provide either a connection_string" in low or "credentials!!" in low):
        why = ("no credentials found: set the provider's environment variables (e.g. AWS_ACCESS_KEY_ID and "
               "AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) or log in with its CLI")
    elif ("permanentredirect" in low or "temporaryredirect" in low or "moved permanently" in low or " redirect" in low
          or re.search(r"(errno|status|code|http)\D{0,3}301\b", low)
          or "must be addressed using the specified endpoint" in low or "authorizationheadermalformed" in low
          or "illegallocationconstraint" in low):
        m = (re.search(r"expecting '([a-z0-9-]+)'", text)  # the region S3 names, else one the message holds
             or re.search(r"(?:bucket-region|BucketRegion|Region)[\"': =]+([a-z]{2}-[a-z]+-\d)", text))
        region = m.group(1) if m else None
        why = (f"{_container_word(url)} {_bucket(url)!r} is in another region"
               + (f" ({region})" if region else "") + ": S3 answered with a redirect; set AWS_REGION (or "
               "AWS_DEFAULT_REGION) to the bucket's region")
    elif ("nosuchbucket" in low or "bucket does not exist" in low or "specified bucket does not exist" in low
          or "containernotfound" in low or "container does not exist" in low):
        why = (f"{_container_word(url)} {_bucket(url)!r} does not exist (or is not visible with these "
               "credentials)")
    elif (isinstance(exc, PermissionError) or "accessdenied" in low or "access denied" in low or "forbidden" in low
          or "403" in low or "authorizationfailure" in low or "authenticationfailed" in low
          or "failed to authenticate" in low or "invalid credentials" in low or "401" in low):
        why = "access denied: the credentials in the environment or profile may not read it"
    elif isinstance(exc, (TypeError, AttributeError, NameError)):
        why = f"object storage error (a bug, please report it): {text.splitlines()[0][:200]}"
    elif "timeout" in low or "timed out" in low or isinstance(exc, TimeoutError):
        why = f"timed out after {timeout_s():g} s (COSTMODEL_STORAGE_TIMEOUT_S); is the endpoint reachable?"
    elif "could not connect" in low or "connection" in low or "endpoint" in low:
        why = f"cannot connect to the storage endpoint ({type(exc).__name__})"
    elif isinstance(exc, FileNotFoundError) or "nosuchkey" in low or "not found" in low or "404" in low:
        why = "no such object or prefix"
    else:
        why = f"object storage error: {text.splitlines()[0][:200]}"
    return IngestError(why, path=str(url))


def _filesystem_or_error(url: str) -> Any:
    """:func:`filesystem`, with a failure to build it (adlfs without any credentials raises ValueError) as one line."""
    from ..foundation.errors import CostmodelError

    try:
        return filesystem(url)
    except CostmodelError:
        raise
    except Exception as exc:  # noqa: BLE001 - every backend error becomes one line
        raise storage_error(url, exc) from None


def list_objects(url: str, sizes: dict[str, int] | None = None) -> list[str]:
    """The objects at ``url``: itself when it is an object, else every object under it as a prefix
    (recursive, sorted, as full URLs). Raises IngestError (one line) on any storage failure or when
    nothing is there. ``sizes``, when given, is filled with each listed object's size in bytes (as listed)."""
    fs = _filesystem_or_error(url)
    scheme = str(url).split("://", 1)[0]
    try:
        found = _call(fs, "find", str(url), detail=True)
        if not found:
            if _call(fs, "isfile", str(url)):
                if sizes is not None:
                    with contextlib.suppress(Exception):
                        sizes[str(url)] = int(_call(fs, "size", str(url)))
                return [str(url)]
            raise FileNotFoundError(url)
        if isinstance(found, dict):
            if sizes is not None:
                for p, info in found.items():
                    with contextlib.suppress(TypeError, ValueError, AttributeError):
                        sizes[f"{scheme}://{p}"] = int(info.get("size") or 0)
            found = list(found)
    except IngestError:
        raise
    except Exception as exc:  # noqa: BLE001 - every backend error becomes one line
        if isinstance(exc, FileNotFoundError) and _bucket_missing(fs, url):
            # GCS answers 404 and Azure an empty listing for a missing bucket / container: say which
            raise IngestError(f"{_container_word(url)} {_bucket(url)!r} does not exist (or is not visible with "
                              "these credentials)", path=str(url)) from None
        raise storage_error(url, exc) from None
    return sorted(f"{scheme}://{p}" for p in found if not p.endswith("/"))


def glob_paths(pattern: str) -> list[str]:
    """Files matching a glob: local (``**`` allowed) or on object storage. Sorted."""
    if is_url(pattern):
        fs = _filesystem_or_error(pattern)
        scheme = pattern.split("://", 1)[0]
        try:
            return sorted(f"{scheme}://{p}" for p in _call(fs, "glob", pattern))
        except Exception as exc:  # noqa: BLE001
            raise storage_error(pattern, exc) from None
    return sorted(p for p in _glob.glob(pattern, recursive=True) if os.path.isfile(p))


def local_targets(objs: list[str], base: str, top: Path, single: bool) -> tuple[list[tuple[str, str]], str]:
    """Where each listed object is copied: ``top/<prefix name>/<key below the prefix>`` (``top/<name>`` for one
    object). A listing is input from the network: every key is normalised and must stay inside ``top``
    (no ``..``, absolute, backslash, NUL or over-long names; :func:`~costmodel.foundation.names.contained`),
    and two keys may not land on the same file; IngestError naming the key otherwise. Returns the pairs
    (URL, local path) and the local path that stands for ``base``."""
    from ..foundation.names import contained, shown

    pairs: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    if single:
        name = str(objs[0]).split("://", 1)[1].rsplit("/", 1)[-1]
        one = str(contained(top, name, key=objs[0]))
        return [(objs[0], one)], one
    prefix_name = base.split("://", 1)[1].rstrip("/").rsplit("/", 1)[-1]
    folder = contained(top, prefix_name, key=base) if "/" in base.split("://", 1)[1] else top / prefix_name
    for obj in objs:
        if not obj.startswith(base + "/") and obj != base:
            raise IngestError("refused: the listing returned an object outside the prefix asked for",
                              path=shown(obj))
        dst = str(contained(folder, obj[len(base) + 1:], key=obj))  # "<prefix>//etc/x" is the absolute "/etc/x"
        if dst in seen:
            raise IngestError(f"refused: two listed objects map to the same local file ({shown(seen[dst])} and this one)",
                              path=shown(obj))
        seen[dst] = obj
        pairs.append((obj, dst))
    files = set(seen)
    for dst, obj in seen.items():
        parent = str(Path(dst).parent)
        while len(parent) > len(str(folder)):
            if parent in files:
                raise IngestError(f"refused: the listed object {shown(seen[parent])} is also a prefix of this one",
                                  path=shown(obj))
            parent = str(Path(parent).parent)
    return pairs, str(folder)


def _check_work(url: str, objs: list[str], sizes: dict[str, int], copies: LocalCopies) -> None:
    """Refuse, before anything is copied, a listing of more than ``COSTMODEL_MAX_OBJECTS`` objects or more than
    ``COSTMODEL_MAX_OBJECT_BYTES`` in all (this command's copies so far included): one line naming the URL."""
    from ..foundation.limits import max_object_bytes, max_objects
    from ..foundation.names import shown

    if len(objs) > max_objects():
        raise IngestError(f"{len(objs):,} objects under this prefix, more than {max_objects():,} "
                          "(COSTMODEL_MAX_OBJECTS raises the bound); name a narrower prefix", path=shown(url))
    copies.bytes_listed += sum(sizes.get(o, 0) for o in objs)
    if copies.bytes_listed > max_object_bytes():
        big = max(objs, key=lambda o: sizes.get(o, 0))
        raise IngestError(f"{copies.bytes_listed:,} bytes to copy from object storage, more than {max_object_bytes():,} "
                          f"(COSTMODEL_MAX_OBJECT_BYTES raises the bound; the largest object is {shown(big)}, "
                          f"{sizes.get(big, 0):,} bytes)", path=shown(url))


def _progress(url: str, n: int) -> Any:
    """An fsspec callback writing ``copying N objects from URL: k/N`` to stderr (the one progress rule), or the
    no-op callback."""
    from fsspec.callbacks import Callback, NoOpCallback

    from ..foundation.names import shown
    from ..foundation.progress import progress_on

    if n < 50 or not progress_on():
        return NoOpCallback()
    import sys
    import time

    class _Lines(Callback):
        def __init__(self) -> None:
            super().__init__(size=n)
            self.last = 0.0

        def call(self, *args: Any, **kwargs: Any) -> None:
            now = time.monotonic()
            if now - self.last >= 2.0 or self.value >= n:
                self.last = now
                sys.stderr.write(f"copying {n:,} objects from {shown(url)}: {self.value:,}/{n:,}\n")
                sys.stderr.flush()

    return _Lines()


class LocalCopies:
    """Local copies of object-store inputs (a context manager; the folder is removed on exit).

    ``localize(paths)`` returns the paths with each URL replaced by a local file or folder holding
    the objects under it (same relative layout, so folders still group ranks into jobs; every listed key
    checked by :func:`local_targets`: a hostile listing is refused, never written), and fills
    ``origin`` (local path -> URL) so Runs can name the object they came from.
    """

    def __init__(self) -> None:
        self.root: Path | None = None
        self.origin: dict[str, str] = {}
        self.tops: dict[str, str] = {}
        self.bytes_listed = 0

    def __enter__(self) -> LocalCopies:  # noqa: PYI034  no typing.Self on 3.10
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        from ..foundation.errors import CostmodelError

        if isinstance(exc, CostmodelError) and self.tops:  # name <stdin> or the object, never the private copy
            exc.message = self.in_text(exc.message)
            exc.args = (exc.message, *exc.args[1:])
        if exc is not None and not isinstance(exc, Exception):  # a signal mid-copy: transfers left pending are
            import warnings  # dropped on purpose, not a "coroutine never awaited" warning after the one line

            warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            if self.root.exists():  # a transfer thread still writing into it (a signal mid-copy): once more
                import time

                time.sleep(0.2)
                shutil.rmtree(self.root, ignore_errors=True)

    def localize(self, paths: Iterable[str]) -> list[str]:
        out: list[str] = []
        paths = list(paths)
        if sum(is_stdin(p) for p in paths) > 1:
            raise IngestError("standard input ('-') can be read once; it is given more than once", field="FILE")
        for p in paths:
            if is_stdin(p):  # standard input: a pipe read once into a file the readers can sniff and seek
                out.append(self._stdin())
                continue
            if not is_url(p):
                out.append(str(p))
                continue
            root = self._root()
            sizes: dict[str, int] = {}
            objs = list_objects(str(p), sizes)
            _check_work(str(p), objs, sizes, self)
            fs = _filesystem_or_error(str(p))
            base = str(p).rstrip("/")
            single = len(objs) == 1 and objs[0].rstrip("/") == base
            top = root / f"{len(self.origin):06d}"
            pairs, here = local_targets(objs, base, top, single)
            for obj, dst in pairs:
                Path(dst).parent.mkdir(parents=True, exist_ok=True)
                self.origin[dst] = obj
            try:  # one batched, concurrent transfer
                fs.get([o for o, _ in pairs], [d for _, d in pairs], batch_size=concurrency(),
                       callback=_progress(str(p), len(pairs)))
            except Exception as exc:  # noqa: BLE001
                raise storage_error(str(p), exc) from None
            out.append(here)
            self.origin.setdefault(out[-1], str(p))
            self.tops[here] = str(p).rstrip("/") if not single else objs[0]
        return out

    def _root(self) -> Path:
        """This run's temporary folder, made on first use (a killed run's folder is removed by the next run)."""
        if self.root is None:
            from ..foundation.leftovers import owned_tempdir

            self.root = owned_tempdir("costmodel-objects-")
        return self.root

    def _stdin(self) -> str:
        """Standard input copied into this run's temporary folder as ``stdin`` (the run is named ``stdin``);
        the copy's path stands for ``-`` in sources and warnings."""
        from ..foundation import stdin

        dst = self._root() / "stdin"
        self.tops[str(dst)] = stdin.NAME  # messages about the copy name <stdin>
        try:
            stdin.copy_to(dst)  # bounded (COSTMODEL_MAX_STDIN_BYTES); nothing left past the bound
        except stdin.StdinTooLarge as exc:
            raise IngestError(str(exc)) from None
        self.origin[str(dst)] = "-"
        return str(dst)

    def in_text(self, text: str) -> str:
        """``text`` (a warning) with each local copy's path replaced by the URL it came from."""
        for local in sorted(self.tops, key=len, reverse=True):
            text = text.replace(local, self.tops[local])
        return text

    def url_of(self, local: str) -> str:
        return self.origin.get(str(local), str(local))


_FS_CACHE: dict[tuple[str, int], Any] = {}


def _cached_filesystem(url: str) -> Any:
    """:func:`filesystem` for ``url``, one per protocol and thread (a Dask worker reads many objects with one
    client; credentials and endpoint come from that worker's own environment)."""
    import threading

    key = (_PROTOCOL[str(url).split("://", 1)[0].lower()], threading.get_ident())
    fs = _FS_CACHE.get(key)
    if fs is None:
        fs = _FS_CACHE[key] = filesystem(url)
    return fs


def read_bytes(path: str) -> bytes:
    """The whole content of a local file or an object (one GET); IngestError (one line) on a storage failure."""
    if not is_url(path):
        with open(path, "rb") as fh:
            return fh.read()
    try:
        return bytes(_cached_filesystem(path).cat_file(str(path)))
    except Exception as exc:  # noqa: BLE001 - every backend error becomes one line
        raise storage_error(path, exc) from None


def read_ranges(path: str, ranges: list[tuple[int, int]], size: int | None = None) -> tuple[int, list[bytes]]:
    """The file's or object's size and the bytes of each ``(start, length)`` range (clipped to the size)."""
    if not is_url(path):
        size = os.path.getsize(path) if size is None else size
        out = []
        with open(path, "rb") as fh:
            for start, n in ranges:
                fh.seek(min(start, size))
                out.append(fh.read(n))
        return size, out
    try:
        fs = _cached_filesystem(path)
        size = int(fs.size(str(path))) if size is None else size
        return size, [bytes(fs.cat_file(str(path), start=min(s, size), end=min(s + n, size))) for s, n in ranges]
    except Exception as exc:  # noqa: BLE001
        raise storage_error(path, exc) from None


def size_of(path: str) -> int:
    """Bytes of a local file or an object."""
    if not is_url(path):
        return os.path.getsize(path)
    try:
        return int(_cached_filesystem(path).size(str(path)))
    except Exception as exc:  # noqa: BLE001
        raise storage_error(path, exc) from None

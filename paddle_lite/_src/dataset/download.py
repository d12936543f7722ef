"""Data home, md5 checks and verified downloads for the data set modules.

Every data set keeps its files in ``<data home>/<module>/``. The data home is
``~/.cache/paddle_lite/dataset`` unless the environment variable
``PADDLE_LITE_DATA_HOME`` names another folder. The variable is read each time a
function needs the folder, and nothing is created until a file is written there.
"""

from __future__ import annotations

import hashlib
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from paddle_lite._src.errors import PaddleLiteError
from paddle_lite._src.files import atomic

DATA_HOME_ENV = "PADDLE_LITE_DATA_HOME"
DEFAULT_DATA_HOME = os.path.join("~", ".cache", "paddle_lite", "dataset")
RETRY_LIMIT = 3
TIMEOUT_S = 30.0
_CHUNK = 1 << 16


class DownloadError(PaddleLiteError, RuntimeError):
    """A data file could not be downloaded and is not present in the data home.

    Attributes:
      url: the address that was tried.
      path: where the file is expected.
      md5sum: the md5 the file must have.
    """

    def __init__(self, message: str, url: str = "", path: str = "", md5sum: str = ""):
        super().__init__(message)
        self.url: str = url
        self.path: str = path
        self.md5sum: str = md5sum


def data_home() -> str:
    """Return the data home folder, resolving ``PADDLE_LITE_DATA_HOME`` now.

    Returns:
      The absolute path of the data home. The folder may not exist yet.
    """
    home = os.environ.get(DATA_HOME_ENV) or DEFAULT_DATA_HOME
    return os.path.abspath(os.path.expanduser(home))


def module_home(module_name: str) -> str:
    """Return ``<data home>/<module_name>`` without creating it.

    Args:
      module_name: the data set module, e.g. ``"mnist"``.

    Returns:
      The folder where that module keeps its files.
    """
    return os.path.join(data_home(), module_name)


def _target_path(url: str, module_name: str, save_name: str | None) -> str:
    """``<data home>/<module_name>/<save_name or url_file_name(url)>``."""
    return os.path.join(module_home(module_name), save_name or url_file_name(url))


def url_file_name(url: str) -> str:
    """Return the file name a URL saves as: its last path component, %-decoded.

    Example:
      >>> url_file_name("https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz")
      'simple-examples.tgz'
    """
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    return path.rstrip("/").rsplit("/", 1)[-1]


def md5file(fname: str) -> str:
    """Return the hex md5 digest of a file's bytes.

    Args:
      fname: path of the file.

    Returns:
      32 lower-case hex digits, e.g. ``"09f7e02f1290be211da707a266f153b3"`` for ``"Hello\\n"``.
    """
    digest = hashlib.md5()
    with open(fname, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _TextProgress:
    """A plain progress line on stderr, used when tqdm is not installed."""

    def __init__(self, total: int, name: str):
        self.total, self.name, self.done = total, name, 0

    def update(self, n: int) -> None:
        self.done += n
        if self.total > 0:
            pct = self.done * 100 // self.total
            text = f"\r{self.name}: {pct:3d}% ({self.done}/{self.total} bytes)"
        else:
            text = f"\r{self.name}: {self.done} bytes"
        sys.stderr.write(text)
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


def _progress_bar(total: int, name: str):
    """Return a progress bar with ``update(n)`` and ``close()``: tqdm if importable."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _TextProgress(total, name)
    return tqdm(total=total or None, unit="B", unit_scale=True, desc=name)


def _copy_with_progress(resp, out, name: str) -> None:
    """Copy a response body to ``out`` in chunks, reporting progress."""
    bar = _progress_bar(int(resp.headers.get("Content-Length") or 0), name)
    try:
        for chunk in iter(lambda: resp.read(_CHUNK), b""):
            out.write(chunk)
            bar.update(len(chunk))
    finally:
        bar.close()


def _fetch_verified(url: str, target: str, md5sum: str) -> str:
    """Download ``url`` to a temporary file beside ``target``; move it there if the md5 matches.

    Nothing is written to disk until the server has answered; the file is committed with
    ``atomic.commit`` (fsync, rename, folder fsync), so ``target`` is never partial.

    Returns:
      The md5 of the downloaded bytes.
    """
    with (
        urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp,
        atomic.temporary_path(target, makedirs=True) as tmp,
    ):
        with open(tmp, "wb") as out:
            _copy_with_progress(resp, out, os.path.basename(target))
        got = md5file(tmp)
        if got == md5sum:
            atomic.commit(tmp, target)
        return got


def place_hint(path: str, md5sum: str) -> str:
    """Return the sentence telling a user to copy a file into the data home by hand."""
    module, name = path.split(os.sep)[-2:]
    return (
        f"Without network access, copy the file to {path} (md5 {md5sum}), or point "
        f"{DATA_HOME_ENV} at another data home that has {module}/{name}."
    )


def download(url: str, module_name: str, md5sum: str, save_name: str | None = None) -> str:
    """Download a file into the data home unless a copy with the right md5 is already there.

    The file goes to ``<data home>/<module_name>/<save_name or url_file_name(url)>``. Each of
    up to 3 tries writes to a temporary file and renames it into place only when it is complete
    and its md5 matches, so a failed download never leaves a partial or wrong file behind.

    Args:
      url: where to download the file from.
      module_name: the data set module; names the sub-folder of the data home.
      md5sum: the expected md5 of the file.
      save_name: file name to save as; defaults to ``url_file_name`` of ``url``.

    Returns:
      The path of the verified file.

    Raises:
      DownloadError: the file is not present with the right md5 and could not be downloaded
        (no network, server error, or md5 mismatch 3 times). The message names the path to
        place the file at and its md5.
    """
    path = _target_path(url, module_name, save_name)
    problem = ""
    if os.path.exists(path):
        present = md5file(path)
        if present == md5sum:
            return path
        problem = f"the file already there has md5 {present}; "
    for _ in range(RETRY_LIMIT):
        try:
            got = _fetch_verified(url, path, md5sum)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            error = f"{type(exc).__name__}: {exc}"
            continue
        if got == md5sum:
            return path
        error = f"md5 mismatch: received {got}, expected {md5sum}"
    raise DownloadError(
        f"Cannot download {url} to {path} within retry limit {RETRY_LIMIT} ({problem}{error}). "
        + place_hint(path, md5sum),
        url=url,
        path=path,
        md5sum=md5sum,
    )


def download_or_explain(
    url: str, module_name: str, md5sum: str, save_name: str | None = None, alternative: str = ""
) -> str:
    """Like ``download``, but add to the error what local files would do instead.

    Args:
      url: where to download the file from.
      module_name: the data set module.
      md5sum: the expected md5 of the file.
      save_name: file name to save as; defaults to ``url_file_name`` of ``url``.
      alternative: a sentence naming extracted files the module also accepts.

    Returns:
      The path of the verified file.

    Raises:
      DownloadError: as ``download``, with ``alternative`` appended to the message.
    """
    try:
        return download(url, module_name, md5sum, save_name)
    except DownloadError as exc:
        if not alternative:
            raise
        raise DownloadError(
            f"{exc} {alternative}", url=exc.url, path=exc.path, md5sum=exc.md5sum
        ) from None


def existing_or_download(
    url: str, module_name: str, md5sum: str, save_name: str | None = None, alternative: str = ""
) -> str:
    """Return the data-home copy of a file if one exists, else download it.

    A file already present is used as it is (its content is checked when read), so archives
    built or copied by hand work offline.

    Args:
      url: where to download the file from when it is absent.
      module_name: the data set module.
      md5sum: the md5 of the official file.
      save_name: file name; defaults to the last component of ``url``.
      alternative: a sentence naming extracted files the module also accepts.

    Returns:
      The path of the file.

    Raises:
      DownloadError: the file is absent and could not be downloaded.
    """
    path = _target_path(url, module_name, save_name)
    if os.path.isfile(path):
        return path
    return download_or_explain(url, module_name, md5sum, save_name, alternative)

"""PipeReader: a command's standard output as a source of samples (v2 ``paddle.reader.decorator``).

The command runs without a shell, afresh for each pass; its output is decoded as UTF-8 (gunzipped
first for ``file_type="gzip"``) and yielded as lines or as chunks.
"""

from __future__ import annotations

import codecs
import os
import shlex
import shutil
import subprocess
import zlib
from collections.abc import Iterable, Iterator

from paddle_lite._src.errors import DataError
from paddle_lite._src.readers.decorator import ReaderTypeError, check_count, show


def _gunzip(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Decompress a stream of gzip bytes (several concatenated members allowed)."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = False
    for raw in chunks:
        while raw:
            pending = True
            yield inflate.decompress(raw)
            raw = b""
            if inflate.eof:
                raw, pending = inflate.unused_data, False
                inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    if pending:
        raise DataError("PipeReader: the gzip stream ended in the middle of a member.")


def _split_lines(texts: Iterable[str], line_break: str) -> Iterator[str]:
    rest = ""
    for text in texts:
        parts = (rest + text).split(line_break)
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


class PipeReader:
    """Read the standard output of a command, as text lines or chunks.

    The command is split with ``shlex.split`` and run without a shell (v2 ran it through
    the shell): pipes, globs and redirections are not interpreted, quoting is. Each
    [`get_line`][paddle_lite.reader.PipeReader.get_line] call starts the command afresh, so one
    PipeReader serves many passes. The output is decoded as UTF-8; ``file_type="gzip"`` gunzips it
    first. A command that exits with a non-zero status raises ``subprocess.CalledProcessError`` at
    the end.

    Args:
        command: the command line, a str (e.g. ``"cat data.txt"``).
        bufsize: the most bytes taken from the pipe per read (>= 1).
        file_type: ``"plain"`` or ``"gzip"``.

    Example:
        ```python
        def reader():
            for line in PipeReader("cat train.txt").get_line():
                yield line.split()
        ```
    """

    def __init__(self, command: str, bufsize: int = 8192, file_type: str = "plain") -> None:
        if not isinstance(command, str):
            raise ReaderTypeError(f"PipeReader: command must be a str; received {show(command)}.")
        if file_type not in ("plain", "gzip"):
            raise ReaderTypeError(
                f"PipeReader: file_type must be 'plain' or 'gzip'; received {file_type!r}."
            )
        self.argv = shlex.split(command)
        if not self.argv:
            raise DataError("PipeReader: command is empty; expected e.g. 'cat data.txt'.")
        if os.sep not in self.argv[0] and shutil.which(self.argv[0]) is None:
            raise FileNotFoundError(
                f"PipeReader: program {self.argv[0]!r} of command {command!r} is not on PATH."
            )
        self.command = command
        self.bufsize = check_count(bufsize, "PipeReader", "bufsize", 1)
        self.file_type = file_type

    def _raw_chunks(self) -> Iterator[bytes]:
        proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, bufsize=0)
        try:
            while raw := proc.stdout.read(self.bufsize):
                yield raw
            status = proc.wait()
            if status != 0:
                raise subprocess.CalledProcessError(status, self.command)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.wait()

    def _texts(self) -> Iterator[str]:
        raw = self._raw_chunks()
        chunks = _gunzip(raw) if self.file_type == "gzip" else raw
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            for chunk in chunks:
                if text := decoder.decode(chunk):
                    yield text
            if tail := decoder.decode(b"", final=True):
                yield tail
        finally:
            raw.close()

    def get_line(self, cut_lines: bool = True, line_break: str = "\n") -> Iterator[str]:
        """Run the command and iterate over its output.

        Args:
            cut_lines: when True yield lines (without ``line_break``; a last line without a
                break is yielded too); when False yield decoded chunks as they arrive.
            line_break: the line separator, a non-empty str.

        Returns:
            An iterator of str.
        """
        if not isinstance(line_break, str) or not line_break:
            raise ReaderTypeError(
                f"PipeReader.get_line: line_break must be a non-empty str; "
                f"received {show(line_break)}."
            )
        return self._lines(line_break) if cut_lines else self._texts()

    def _lines(self, line_break: str) -> Iterator[str]:
        texts = self._texts()
        try:
            yield from _split_lines(texts, line_break)
        finally:
            texts.close()

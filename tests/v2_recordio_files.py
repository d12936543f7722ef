"""v2 RecordIO files built byte by byte from the format of Go's ``recordio`` package, for
tests: independent of paddle_lite's reader and writer.

A chunk is the 20-byte little-endian header (magic 0x01020304, CRC-32 IEEE of the compressed
data, compressor 0 none / 1 snappy / 2 gzip, compressed size, number of records) and the
compressed records, each a uint32 length and its bytes. Snappy is the framing format (the
``sNaPpY`` stream of Go's ``snappy.NewBufferedWriter``), built here from literal-only blocks
with masked CRC-32C checksums. Records are pickles as v2's Python 2 ``cPickle.dumps`` wrote
them (protocol 0), numpy arrays included.
"""

import gzip
import struct
import zlib

MAGIC = 0x01020304


def _crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def snappy_framed(raw):
    """A snappy framing-format stream of ``raw``: one compressed frame per 64 KiB, each block
    a single literal."""
    out = b"\xff\x06\x00\x00sNaPpY"
    for start in range(0, len(raw), 65536):
        piece = raw[start : start + 65536]
        n = len(piece) - 1
        tag = bytes([n << 2]) if n < 60 else bytes([61 << 2]) + struct.pack("<H", n)
        if 60 <= n < 256:
            tag = bytes([60 << 2, n])
        block = _varint(len(piece)) + tag + piece
        crc = _crc32c(piece)
        masked = (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
        body = struct.pack("<I", masked) + block
        out += b"\x00" + len(body).to_bytes(3, "little") + body
    return out


COMPRESS = {0: lambda raw: raw, 1: snappy_framed, 2: gzip.compress}


def chunk(records, compressor=0):
    raw = b"".join(struct.pack("<I", len(r)) + r for r in records)
    data = COMPRESS[compressor](raw)
    header = struct.pack("<5I", MAGIC, zlib.crc32(data), compressor, len(data), len(records))
    return header + data


def py2_str(data):
    """A Python 2 ``str`` in protocol 0 (``S'...'``, every byte escaped)."""
    return b"S'" + "".join(f"\\x{b:02x}" for b in data).encode() + b"'\n"


def py2_array_float32(values):
    """``cPickle.dumps(numpy.array(values, 'float32'))`` as Python 2's numpy wrote it."""
    data = struct.pack(f"<{len(values)}f", *values)
    return (
        b"cnumpy.core.multiarray\n_reconstruct\np0\n(cnumpy\nndarray\np1\n(I0\ntp2\nS'b'\np3\n"
        b"tp4\nRp5\n(I1\n(I" + str(len(values)).encode() + b"\ntp6\ncnumpy\ndtype\np7\n"
        b"(S'f4'\np8\nI0\nI1\ntp9\nRp10\n(I3\nS'<'\np11\nNNNI-1\nI-1\nI0\ntp12\nbI00\n"
        + py2_str(data)
        + b"p13\ntp14\nb."
    )


def py2_tuple_of_ints(values):
    """``cPickle.dumps(tuple_of_ints)`` (protocol 0)."""
    return b"(" + b"".join(b"I%d\n" % v for v in values) + b"tp0\n."


def py2_sample(label, words, values):
    """``cPickle.dumps((numpy float32 array, int label, str word, unicode word))``."""
    body = py2_array_float32(values)[:-1]  # the array without its STOP
    text = words.encode("raw_unicode_escape")
    return b"(" + body + b"I%d\n" % label + py2_str(words.encode()) + b"V" + text + b"\ntp99\n."

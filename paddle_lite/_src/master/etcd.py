"""etcd v3 through its HTTP/JSON gateway, with the standard library only.

etcd (3.3 and later) serves its gRPC API as JSON over HTTP at ``/v3/...`` on the client
port: ``kv/range``, ``kv/put``, ``kv/txn``, ``kv/deleterange``, ``lease/grant``,
``lease/keepalive`` and ``lease/revoke``. Keys and values are base64, 64-bit integers are
decimal strings, and fields at their zero value are left out of answers. Talking to it with
``urllib`` needs no dependency: the ``etcd3`` package on PyPI is unmaintained and breaks with
current protobuf, and a gRPC client would bring grpcio and generated stubs for a handful of
calls that each send one small JSON object.

Several endpoints are tried in turn; ``EtcdUnavailable`` says none answered (the caller
retries or gives up), ``EtcdError`` carries an error etcd itself returned.
"""

from __future__ import annotations

import base64
import dataclasses
import http.client
import json
import math
import urllib.error
import urllib.request
from typing import Any

from paddle_lite._src.errors import ArgumentTypeError, MasterError


class EtcdError(MasterError):
    """etcd answered with an error (its gRPC code and message)."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


class EtcdUnavailable(MasterError, ConnectionError):
    """No etcd endpoint answered."""


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode("ascii")


def prefix_end(prefix: str) -> str:
    """The end of the key range of every key that starts with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


@dataclasses.dataclass(frozen=True)
class KeyValue:
    key: str
    value: bytes
    mod_revision: int

    @classmethod
    def from_json(cls, kv: dict[str, Any]) -> KeyValue:
        return cls(
            base64.b64decode(kv["key"]).decode(),
            base64.b64decode(kv.get("value", "")),
            int(kv.get("mod_revision", 0)),
        )

    def json(self) -> Any:
        return json.loads(self.value)


def normalize_endpoints(endpoints: Any) -> list[str]:
    """``"http://a:2379,b:2379"`` or a list of them -> base URLs (``http://`` by default)."""
    if isinstance(endpoints, (bytes, str)):
        text = endpoints.decode() if isinstance(endpoints, bytes) else endpoints
        parts = text.split(",")
    elif isinstance(endpoints, (list, tuple)) and all(isinstance(e, str) for e in endpoints):
        parts = list(endpoints)
    else:
        raise ArgumentTypeError(
            "etcd_endpoints must be a str of comma-separated URLs (v2's form, e.g. "
            f"'http://127.0.0.1:2379') or a list of them; received {endpoints!r}."
        )
    urls = [p.strip().rstrip("/") for p in parts if p.strip()]
    if not urls:
        raise ArgumentTypeError(f"etcd_endpoints names no endpoint: {endpoints!r}.")
    return [u if "://" in u else f"http://{u}" for u in urls]


def compare(key: str, target: str, value: Any, result: str = "EQUAL", *, prefix: bool = False):
    """One txn comparison: ``target`` is ``"CREATE"``, ``"MOD"``, ``"VERSION"`` or ``"VALUE"``;
    with ``prefix``, every key under ``key`` (none at all compares as a key of version 0)."""
    field = {"CREATE": "create_revision", "MOD": "mod_revision", "VERSION": "version"}
    out = {"key": b64(key), "target": target, "result": result}
    out[field.get(target, "value")] = b64(value) if target == "VALUE" else str(value)
    if prefix:
        out["range_end"] = b64(prefix_end(key))
    return out


def put(key: str, value: Any, lease: int = 0) -> dict[str, Any]:
    """A txn put; ``value`` is bytes, str, or anything JSON (dumped)."""
    data = value if isinstance(value, (bytes, str)) else json.dumps(value, sort_keys=True)
    request = {"key": b64(key), "value": b64(data)}
    if lease:
        request["lease"] = str(lease)
    return {"request_put": request}


def delete(key: str, *, prefix: bool = False) -> dict[str, Any]:
    request = {"key": b64(key)}
    if prefix:
        request["range_end"] = b64(prefix_end(key))
    return {"request_delete_range": request}


class Etcd:
    """A client of etcd's HTTP gateway at one or more endpoints (thread-safe: no state but
    which endpoint answered last).

    Args:
      endpoints: base URLs, e.g. ``["http://127.0.0.1:2379"]``.
      timeout: seconds each request may take.
    """

    def __init__(self, endpoints: list[str], timeout: float) -> None:
        self.endpoints = endpoints
        self.timeout = timeout
        self._first = 0

    def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` to ``/v3/<path>`` on the first endpoint that answers."""
        data = json.dumps(body).encode()
        failures = []
        for step in range(len(self.endpoints)):
            index = (self._first + step) % len(self.endpoints)
            request = urllib.request.Request(
                f"{self.endpoints[index]}/v3/{path}", data=data, method="POST"
            )
            request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    text = answer.read()
            except urllib.error.HTTPError as err:
                raise self._error(path, err) from None
            except (OSError, http.client.HTTPException) as err:
                failures.append(f"{self.endpoints[index]}: {err}")
                continue
            self._first = index
            return json.loads(text.splitlines()[0] if path == "lease/keepalive" else text)
        raise EtcdUnavailable(
            f"no etcd endpoint answered /v3/{path} within {self.timeout} s ("
            + "; ".join(failures)
            + "). Check that etcd runs and that etcd_endpoints names its client URLs."
        )

    @staticmethod
    def _error(path: str, err: urllib.error.HTTPError) -> EtcdError:
        try:
            body = json.loads(err.read())
        except ValueError:
            body = {}
        message = body.get("message") or body.get("error") or str(err)
        return EtcdError(f"etcd refused /v3/{path}: {message}", int(body.get("code", 0)))

    def get(self, key: str, *, prefix: bool = False, limit: int = 0) -> list[KeyValue]:
        body = {"key": b64(key), "limit": str(limit)}
        if prefix:
            body["range_end"] = b64(prefix_end(key))
        return [KeyValue.from_json(kv) for kv in self.call("kv/range", body).get("kvs", [])]

    def count(self, key: str) -> int:
        """The number of keys under the prefix ``key``."""
        body = {"key": b64(key), "range_end": b64(prefix_end(key)), "count_only": True}
        return int(self.call("kv/range", body).get("count", 0))

    def txn(
        self, compares: list[dict], success: list[dict], failure: list[dict] | None = None
    ) -> tuple[bool, int]:
        """Run the success (or failure) requests atomically; ``(succeeded, revision)``, the
        revision being the store's after the txn (the mod revision of what it wrote)."""
        body = {"compare": compares, "success": success, "failure": failure or []}
        answer = self.call("kv/txn", body)
        return bool(answer.get("succeeded", False)), int(answer["header"]["revision"])

    def delete_prefix(self, key: str) -> None:
        self.call("kv/deleterange", delete(key, prefix=True)["request_delete_range"])

    def grant(self, ttl: float) -> int:
        """A new lease of ``ttl`` seconds (etcd raises short TTLs to its minimum)."""
        return int(self.call("lease/grant", {"TTL": str(max(1, math.ceil(ttl)))})["ID"])

    def keepalive(self, lease: int) -> int:
        """Refresh ``lease``; its remaining TTL in seconds, 0 when it has expired."""
        return int(self.call("lease/keepalive", {"ID": str(lease)}).get("result", {}).get("TTL", 0))

    def revoke(self, lease: int) -> None:
        """End ``lease`` now; the keys attached to it are deleted."""
        try:
            self.call("lease/revoke", {"ID": str(lease)})
        except EtcdError as err:
            if err.code != 5:  # NotFound: it had expired already
                raise

"""A real etcd server for the tests: Debian's ``etcd-server`` (``/usr/bin/etcd``, 3.4) on
127.0.0.1 with free ports and a temporary data dir, started and stopped by the test.

``.ci/run`` installs the package when it is absent, so in CI these tests run; elsewhere the
fixture skips them, saying so, when no etcd binary is found.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

ETCD = os.environ.get("PADDLE_LITE_ETCD", shutil.which("etcd") or "/usr/bin/etcd")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EtcdServer:
    """One etcd member; :meth:`stop` and :meth:`start` again reuse its ports and data dir."""

    def __init__(self, data_dir: str) -> None:
        self.data_dir = data_dir
        self.client_port, self.peer_port = _free_port(), _free_port()
        self.endpoint = f"http://127.0.0.1:{self.client_port}"
        self.process: subprocess.Popen | None = None
        self.log_path = os.path.join(os.path.dirname(data_dir), "etcd.log")

    def start(self, timeout: float = 20.0) -> None:
        peer = f"http://127.0.0.1:{self.peer_port}"
        command = [
            ETCD,
            "--name=test",
            f"--data-dir={self.data_dir}",
            f"--listen-client-urls={self.endpoint}",
            f"--advertise-client-urls={self.endpoint}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=test={peer}",
        ]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited ({self.process.returncode}); see {self.log_path}")
            if self._answers():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"etcd did not answer within {timeout} s; see {self.log_path}")

    def _answers(self) -> bool:
        request = urllib.request.Request(
            f"{self.endpoint}/v3/kv/range", data=json.dumps({"key": "AA=="}).encode()
        )
        try:
            with urllib.request.urlopen(request, timeout=1) as answer:
                return answer.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _started(folder):
    if not os.access(ETCD, os.X_OK):
        pytest.skip(f"no etcd binary at {ETCD}: apt-get install etcd-server (CI installs it)")
    server = EtcdServer(str(folder / "etcd-data"))
    server.start()
    return server


@pytest.fixture
def etcd(tmp_path):
    """A running etcd server of its own (skips the test, with the reason, where etcd is not
    installed)."""
    server = _started(tmp_path)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_etcd(tmp_path_factory):
    """One etcd server for a module's tests (each test uses its own key prefix)."""
    server = _started(tmp_path_factory.mktemp("etcd"))
    yield server
    server.stop()

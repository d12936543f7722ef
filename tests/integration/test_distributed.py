"""Data parallelism: CPU host devices and two local processes against one device.

Each run is a fresh Python process (CPU host devices must exist before JAX starts),
so these tests take a few seconds each.
"""

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import ConfigError, TrainingWarning

SCRIPT = pathlib.Path(__file__).parents[1] / "unit" / "scripts" / "data_parallel.py"
ENV = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONUNBUFFERED": "1"}


def _run(*args, timeout=300):
    done = subprocess.run(
        [sys.executable, *map(str, args)], env=ENV, capture_output=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return done


def _assert_close(got, want, atol):
    with np.load(got) as a, np.load(want) as b:
        assert a.files == b.files
        for name in b.files:
            np.testing.assert_allclose(a[name], b[name], atol=atol, rtol=0, err_msg=name)


@pytest.fixture(scope="module")
def one_device(tmp_path_factory):
    out = tmp_path_factory.mktemp("dp") / "one.npz"
    _run(SCRIPT, 1, out, 30, 1)
    return out


def test_four_host_devices_equal_one_device(one_device, tmp_path):
    # 30 rows split over 4 devices: two rows of weight 0 pad the batch to 32
    _run(SCRIPT, 4, tmp_path / "four.npz", 30, 1)
    _assert_close(tmp_path / "four.npz", one_device, atol=1e-5)


def test_batch_norm_on_four_host_devices_ignores_the_padding_rows(tmp_path):
    # 120 rows in batches of 30, each padded to 32 for the 4 devices
    _run(SCRIPT, 1, tmp_path / "one.npz", 30, 1, -1, 1)
    _run(SCRIPT, 4, tmp_path / "four.npz", 30, 1, -1, 1)
    _assert_close(tmp_path / "four.npz", tmp_path / "one.npz", atol=1e-5)


def test_two_processes_equal_one_and_each_other(one_device, tmp_path):
    _run("-m", "paddle_lite.launch", "--nproc", 2, SCRIPT, 1, tmp_path / "two", 30, 1)
    _assert_close(tmp_path / "two.0.npz", tmp_path / "two.1.npz", atol=0)
    _assert_close(tmp_path / "two.0.npz", one_device, atol=1e-5)


def test_a_killed_rank_ends_the_other_within_a_minute(tmp_path, fault):
    fault.case(
        "multi-process training",
        "SIGKILL to rank 1 of 2 while both wait",
        "rank 0 exits non-zero within 60 s",
    )
    procs = []
    for rank in range(2):
        env = {
            **ENV,
            "PADDLE_LITE_COORDINATOR_ADDRESS": f"127.0.0.1:{_port()}" if rank == 0 else "",
            "PADDLE_LITE_NUM_PROCESSES": "2",
            "PADDLE_LITE_PROCESS_ID": str(rank),
        }
        procs.append(env)
    procs[1]["PADDLE_LITE_COORDINATOR_ADDRESS"] = procs[0]["PADDLE_LITE_COORDINATOR_ADDRESS"]
    # both ranks stall at step 2, so rank 0 learns of rank 1's death only from the
    # coordination service's missing heartbeats: the slowest way a job ends
    args = [sys.executable, str(SCRIPT), 1, tmp_path / "x", 30, 3, 2]
    logs = [open(tmp_path / f"rank{r}.log", "wb") for r in range(2)]
    running = [
        subprocess.Popen(list(map(str, args)), env=env, stdout=log, stderr=log)
        for env, log in zip(procs, logs, strict=True)
    ]
    deadline = time.time() + 120
    while b"stalled" not in (tmp_path / "rank1.log").read_bytes():
        assert time.time() < deadline and running[1].poll() is None, "rank 1 never got going"
        time.sleep(0.2)
    running[1].send_signal(signal.SIGKILL)
    start = time.time()
    code = running[0].wait(timeout=120)
    running[1].wait()
    for log in logs:
        log.close()
    took = time.time() - start
    assert code != 0 and took < 60, (tmp_path / "rank0.log").read_text()[-2000:]
    fault.observed(f"rank 0 exited with code {code} after {took:.0f} s")


def _port():
    from paddle_lite._src.distributed.launcher import free_port

    return free_port()


def test_the_launcher_names_the_rank_that_failed(tmp_path, fault):
    fault.case(
        "multi-process training",
        "rank 1 of a launched job exits with code 3 (--max-restarts 1)",
        "the launcher names rank 1, restarts once, exits 3",
    )
    script = tmp_path / "fail.py"
    script.write_text(
        "import os, sys, time\n"
        "if os.environ['PADDLE_LITE_PROCESS_ID'] == '1':\n"
        "    sys.exit(3)\n"
        "time.sleep(60)\n"
    )
    start = time.time()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "paddle_lite.launch",
            "--nproc",
            "2",
            "--max-restarts",
            "1",
            str(script),
        ],
        env=ENV,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 3 and time.time() - start < 40
    err = done.stderr.decode()
    assert err.count("rank 1 failed first (exit code 3)") == 2  # the first try and one restart
    fault.observed("launcher: 'rank 1 failed first (exit code 3)', twice; exit code 3")


def test_more_trainers_than_jax_started_with_train_on_the_devices_there_are():
    # v2 ran the extra trainer threads on the devices it had; the summed gradient is the same
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(2))
    cost = paddle.layer.square_error_cost(
        input=paddle.layer.fc(input=x, size=1),
        label=paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1)),
    )
    rows = [(np.array([i, 1.0 - i], np.float32), np.array([2.0 * i], np.float32)) for i in range(8)]

    def trained():
        params = paddle.parameters.create(cost, seed=3)  # JAX runs with one CPU device now
        paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.01)).train(
            paddle.batch(lambda: iter(rows), 4), num_passes=2
        )
        return {n: params.get(n) for n in params.names()}

    want = trained()
    try:
        backend = jax.default_backend()
        with pytest.warns(TrainingWarning, match=rf"trainer_count=4\): JAX has 1 {backend} device"):
            paddle.init(trainer_count=4)
        got = trained()
    finally:
        paddle.init()
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-6)


def test_dist_train_writes_a_valid_indexed_job_and_service(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PADDLE_LITE_K8S_JOB", raising=False)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(2))
    cost = paddle.layer.square_error_cost(
        input=paddle.layer.fc(input=x, size=1),
        label=paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1)),
    )
    params = paddle.parameters.create(cost)
    path = paddle.dist_train(
        cost,
        params,
        reader=None,
        num_workers=3,
        image="reg/mnist:1",
        k8s_job="mnist-dp",
        manifest_path=str(tmp_path / "job.json"),
        gpus_per_worker=1,
    )
    assert "kubectl apply -f" in capsys.readouterr().out
    doc = json.loads(pathlib.Path(path).read_text())
    service, job = doc["items"]
    assert (service["kind"], service["spec"]["clusterIP"]) == ("Service", "None")
    spec = job["spec"]
    assert (job["kind"], spec["completionMode"]) == ("Job", "Indexed")
    assert spec["completions"] == spec["parallelism"] == 3 and spec["backoffLimit"] == 0
    pod = spec["template"]
    assert pod["spec"]["subdomain"] == service["metadata"]["name"] == "mnist-dp"
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    [container] = pod["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["PADDLE_LITE_COORDINATOR_ADDRESS"]["value"] == "mnist-dp-0.mnist-dp:29500"
    assert env["PADDLE_LITE_NUM_PROCESSES"]["value"] == "3"
    index = env["PADDLE_LITE_PROCESS_ID"]["valueFrom"]["fieldRef"]["fieldPath"]
    assert "job-completion-index" in index
    assert container["command"][0] == "python" and container["resources"]["limits"] == {
        "nvidia.com/gpu": 1
    }
    assert pod["spec"]["terminationGracePeriodSeconds"] == 60  # time to checkpoint
    assert "PADDLE_LITE_ETCD_ENDPOINTS" not in env
    with pytest.raises(ConfigError, match="DNS-1123"):
        paddle.dist_train(cost, params, image="x", k8s_job="Bad_Name")


def test_dist_train_runs_an_etcd_server_for_cloud_reader_when_asked(tmp_path, monkeypatch):
    from paddle_lite._src.distributed.kubernetes import manifest

    doc = manifest("mnist", "reg/mnist:1", 2, ["python", "t.py"], etcd_image="etcd:3.4")
    kinds = [item["kind"] for item in doc["items"]]
    assert kinds == ["Service", "Job", "Service", "StatefulSet"]
    etcd_service, etcd = doc["items"][2:]
    assert etcd_service["metadata"]["name"] == etcd["spec"]["serviceName"] == "mnist-etcd"
    assert etcd_service["spec"]["selector"] == etcd["spec"]["template"]["metadata"]["labels"]
    [server] = etcd["spec"]["template"]["spec"]["containers"]
    assert server["image"] == "etcd:3.4" and "--advertise-client-urls=http://mnist-etcd:2379" in (
        server["command"]
    )
    [trainer] = doc["items"][1]["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in trainer["env"]}
    assert env["PADDLE_LITE_ETCD_ENDPOINTS"] == "http://mnist-etcd:2379"


def test_dist_train_trains_inside_its_pod(monkeypatch):
    monkeypatch.setenv("PADDLE_LITE_K8S_JOB", "fit")
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(2))
    cost = paddle.layer.square_error_cost(
        input=paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear()),
        label=paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1)),
    )
    params = paddle.parameters.create(cost)
    before = params.get("___fc_layer_0__.w0").copy()
    data = [([1.0, 2.0], [3.0]), ([0.5, -1.0], [0.0])]
    assert (
        paddle.dist_train(
            cost,
            params,
            reader=paddle.batch(lambda: iter(data), 2),
            num_workers=1,
            image="x",
            k8s_job="fit",
        )
        is None
    )
    assert not np.array_equal(params.get("___fc_layer_0__.w0"), before)


def test_a_table_split_by_rows_trains_like_a_copied_one(tmp_path):
    script = SCRIPT.parent / "row_sharded.py"
    _run(script, 4, "rows", tmp_path / "rows.npz")
    _run(script, 4, "none", tmp_path / "copied.npz")
    with np.load(tmp_path / "rows.npz") as rows, np.load(tmp_path / "copied.npz") as copied:
        assert rows["shards"].tolist() == [[16, 8]] * 4  # each device holds a quarter
        assert copied["shards"].tolist() == [[64, 8]] * 4
        for name in copied.files:
            if name != "shards":
                np.testing.assert_allclose(rows[name], copied[name], atol=1e-6, err_msg=name)

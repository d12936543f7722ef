"""``paddle.dist_train``: the v2 design doc's distributed training call, on Kubernetes.

Outside a cluster it writes a manifest: a headless Service and an Indexed Job of
``num_workers`` pods that run this same script. Each pod gets
``PADDLE_LITE_COORDINATOR_ADDRESS`` (pod 0 through the Service's DNS name),
``PADDLE_LITE_NUM_PROCESSES`` and ``PADDLE_LITE_PROCESS_ID`` (the pod's completion
index), so the script's ``paddle.init()`` joins the job, and ``GRACE_S`` seconds between
a SIGTERM and the kill (a ``train(checkpoint_dir=...)`` checkpoints in them). With
``etcd_image``, the manifest also runs one etcd server (a StatefulSet and its Service,
``<job>-etcd``) and gives the pods its address in ``PADDLE_LITE_ETCD_ENDPOINTS``, for
``cloud_reader`` and ``paddle.master.client``. Apply it with ``kubectl apply -f
<manifest>``. Inside one of those pods (``PADDLE_LITE_K8S_JOB`` names the job) the same
call trains.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

from paddle_lite._src.errors import ConfigError
from paddle_lite._src.files.atomic import write_output
from paddle_lite._src.training.functional import train_fn

PORT = 29500
ETCD_PORT = 2379
GRACE_S = 60  # a pod's terminationGracePeriodSeconds: a step and a checkpoint fit in it
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$")


def _env(job: str, workers: int, etcd: bool) -> list[dict[str, Any]]:
    index = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    env = [
        {"name": "PADDLE_LITE_K8S_JOB", "value": job},
        {"name": "PADDLE_LITE_COORDINATOR_ADDRESS", "value": f"{job}-0.{job}:{PORT}"},
        {"name": "PADDLE_LITE_NUM_PROCESSES", "value": str(workers)},
        {"name": "PADDLE_LITE_PROCESS_ID", "valueFrom": {"fieldRef": {"fieldPath": index}}},
    ]
    if etcd:
        endpoint = f"http://{job}-etcd:{ETCD_PORT}"
        env.append({"name": "PADDLE_LITE_ETCD_ENDPOINTS", "value": endpoint})
    return env


def _etcd(job: str, image: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """One etcd server for the job's master queue: a StatefulSet and its Service."""
    name, own = f"{job}-etcd", {**labels, "paddle-lite/role": "etcd"}
    url = f"http://0.0.0.0:{ETCD_PORT}"
    container = {
        "name": "etcd",
        "image": image,
        "command": ["etcd", "--data-dir=/var/lib/etcd", f"--listen-client-urls={url}",
                    f"--advertise-client-urls=http://{name}:{ETCD_PORT}"],  # fmt: skip
        "ports": [{"containerPort": ETCD_PORT, "name": "client"}],
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": own},
        "spec": {"selector": own, "ports": [{"port": ETCD_PORT, "name": "client"}]},
    }
    stateful = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "labels": own},
        "spec": {
            "serviceName": name,
            "replicas": 1,
            "selector": {"matchLabels": own},
            "template": {"metadata": {"labels": own}, "spec": {"containers": [container]}},
        },
    }
    return [service, stateful]


def manifest(
    job: str,
    image: str,
    workers: int,
    command: list[str],
    gpus: int = 0,
    workdir: str = "/workspace",
    etcd_image: str | None = None,
) -> dict[str, Any]:
    """The Service + Indexed Job manifest (a ``kind: List``) of a ``workers``-pod job, with
    an etcd server when ``etcd_image`` names one."""
    labels = {"app.kubernetes.io/name": "paddle-lite", "paddle-lite/job": job}
    container = {
        "name": "trainer",
        "image": image,
        "command": command,
        "workingDir": workdir,
        "env": _env(job, workers, etcd_image is not None),
        "ports": [{"containerPort": PORT, "name": "coordinator"}],
    }
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": job, "labels": labels},
        "spec": {
            "clusterIP": "None",
            "selector": labels,
            "ports": [{"port": PORT, "name": "coordinator"}],
        },
    }
    pod = {
        "metadata": {"labels": labels},
        "spec": {
            "subdomain": job,
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": GRACE_S,
            "containers": [container],
        },
    }
    job_spec = {
        "completionMode": "Indexed",
        "completions": workers,
        "parallelism": workers,
        "backoffLimit": 0,  # a lost pod ends the job: restart it from the last checkpoint
        "template": pod,
    }
    batch = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job, "labels": labels},
        "spec": job_spec,
    }
    items = [service, batch]
    if etcd_image is not None:
        items += _etcd(job, etcd_image, labels)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _check(k8s_job: Any, image: Any, num_workers: Any) -> None:
    if not isinstance(k8s_job, str) or not _NAME.match(k8s_job):
        raise ConfigError(
            f"dist_train: k8s_job must be a DNS-1123 label (lowercase letters, digits and "
            f"'-', at most 52 characters); received {k8s_job!r}."
        )
    if not isinstance(image, str) or not image:
        raise ConfigError(f"dist_train: image must name a container image; received {image!r}.")
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 1:
        raise ConfigError(f"dist_train: num_workers must be an int >= 1; received {num_workers!r}.")


def dist_train(
    topology: Any,
    parameters: Any,
    trainer: Any = None,
    reader: Any = None,
    num_workers: int = 1,
    image: str | None = None,
    k8s_job: str | None = None,
    num_passes: int = 1,
    event_handler: Any = None,
    feeding: Any = None,
    update_equation: Any = None,
    manifest_path: str | None = None,
    gpus_per_worker: int = 0,
    workdir: str = "/workspace",
    etcd_image: str | None = None,
) -> str | None:
    """Train ``topology`` on ``num_workers`` Kubernetes pods (v2 design doc).

    Args:
        topology, parameters: the cost layer(s) and their ``Parameters``.
        trainer: a ``paddle.trainer.SGD`` to train with (default: ``paddle.train``'s
            cached trainer, with ``update_equation``).
        reader, num_passes, event_handler, feeding, update_equation: as for ``train``.
        num_workers: pods (processes) in the job.
        image: the container image holding this script (at ``workdir``) and paddle_lite.
        k8s_job: the job's name (a DNS label); also the Service's.
        manifest_path: where to write the manifest (default ``<k8s_job>.k8s.json``).
        gpus_per_worker: GPUs each pod asks for.
        workdir: the pods' working directory, where the image holds this script.
        etcd_image: an etcd image (e.g. ``"quay.io/coreos/etcd:v3.4.23"``) to run one etcd
            server beside the job, whose address the pods get in
            ``PADDLE_LITE_ETCD_ENDPOINTS`` (for ``cloud_reader``); None: no etcd.

    Returns:
        Outside the cluster, the manifest's path (train with ``kubectl apply -f``);
        inside a pod, None after training.

    Example:
        ```python
        paddle.dist_train(cost, params, reader=train_reader, num_workers=4,
                          image="registry.example.com/mnist:1", k8s_job="mnist")
        ```
    """
    _check(k8s_job, image, num_workers)
    if os.environ.get("PADDLE_LITE_K8S_JOB") == k8s_job:
        args = {"num_passes": num_passes, "event_handler": event_handler, "feeding": feeding}
        if trainer is not None:
            trainer.train(reader, **args)
        else:
            train_fn(topology, parameters, reader, update_equation=update_equation, **args)
        return None
    command = ["python", sys.argv[0], *sys.argv[1:]]
    path = manifest_path or f"{k8s_job}.k8s.json"
    text = json.dumps(
        manifest(k8s_job, image, num_workers, command, gpus_per_worker, workdir, etcd_image),
        indent=2,
    )
    write_output(path, lambda stream: stream.write(text.encode()))
    print(f"paddle_lite: wrote {path}; start the job with: kubectl apply -f {path}")
    return path

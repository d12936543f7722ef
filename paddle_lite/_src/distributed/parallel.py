"""Data parallelism over local devices and over processes, on JAX's own runtime.

``paddle.init(trainer_count=N)`` trains on ``N`` local devices (GPUs, or ``N`` CPU
host devices made before JAX starts); ``paddle.init(coordinator_address="host:port",
num_processes=P, process_id=i)`` (or the ``PADDLE_LITE_COORDINATOR_ADDRESS``,
``PADDLE_LITE_NUM_PROCESSES`` and ``PADDLE_LITE_PROCESS_ID`` variables, or nothing
under Slurm or Open MPI, which JAX detects) joins ``P`` processes with
``jax.distributed.initialize``. All the devices form one mesh with a ``data`` axis:
parameters and optimizer state are replicated, every batch is split along that axis,
and XLA inserts the gradient all-reduce into the one jitted step.

Every process reads the same global batches and converts only its own rows (padded
to the sequence lengths of the whole batch), so the processes always agree on shapes
and on the number of steps, and training equals one process training on the same
global batches, up to float reduction order. A batch whose size is not a multiple of
the device count is padded with rows of weight 0 (costs, metrics, batch statistics
and the optimizer's sample count ignore them).

A dead process always ends the job (JAX aborts the others after
``heartbeat_timeout_seconds``); collectives time out after ``COLLECTIVE_TIMEOUT_S``
instead of XLA's 30 minutes. Restart from the last checkpoint (``paddle_lite.launch
--max-restarts``).
"""

from __future__ import annotations

import os
import warnings
from typing import Any, NamedTuple

import numpy as np

from paddle_lite._src.errors import ConfigError, TrainingWarning
from paddle_lite._src.tracebacks import user_stacklevel
from paddle_lite._src.values import VALID

HEARTBEAT_TIMEOUT_S = 10
COLLECTIVE_TIMEOUT_S = 60
ENV = {
    "coordinator_address": "PADDLE_LITE_COORDINATOR_ADDRESS",
    "num_processes": "PADDLE_LITE_NUM_PROCESSES",
    "process_id": "PADDLE_LITE_PROCESS_ID",
}

_MESH: dict[str, Any] = {}  # the data mesh, made once per process


def _backend_started() -> bool:
    from jax._src import xla_bridge

    return xla_bridge.backends_are_initialized()


def cluster_args(flags: dict[str, Any]) -> dict[str, Any] | None:
    """``jax.distributed.initialize`` arguments from ``flags`` and the environment, or
    None for a single process; ``{}`` lets JAX detect a Slurm or Open MPI job."""
    args = {k: flags[k] for k in ENV if flags.get(k) is not None}
    for key, var in ENV.items():
        if key not in args and os.environ.get(var):
            args[key] = os.environ[var] if key == "coordinator_address" else int(os.environ[var])
    if args:
        missing = [k for k in ENV if k not in args]
        if missing:
            raise ConfigError(
                f"multi-process training needs coordinator_address, num_processes and "
                f"process_id; missing {missing} (arguments of paddle.init or the "
                f"{', '.join(ENV[k] for k in missing)} variables)."
            )
        return None if args["num_processes"] == 1 else args
    slurm = int(os.environ.get("SLURM_NTASKS", "1")) > 1 and "SLURM_PROCID" in os.environ
    ompi = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1")) > 1
    return {} if slurm or ompi else None


def _start_processes(args: dict[str, Any]) -> None:
    import jax

    if jax.distributed.is_initialized():
        return
    if _backend_started():
        raise ConfigError(
            "paddle.init(): multi-process training must start before JAX does; call "
            "paddle.init(...) first thing in the program."
        )
    flag = f"--xla_cpu_collective_timeout_seconds={COLLECTIVE_TIMEOUT_S}"
    if "xla_cpu_collective_timeout_seconds" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + flag).strip()
    jax.distributed.initialize(**args, heartbeat_timeout_seconds=HEARTBEAT_TIMEOUT_S)


def _local_devices(count: int, use_gpu: bool) -> list[Any]:
    import jax

    if not use_gpu and not _backend_started() and count > 1:
        jax.config.update("jax_num_cpu_devices", count)
    devices = jax.local_devices()
    if len(devices) < count:  # v2 ran the extra trainer threads on the same devices
        warnings.warn(
            f"paddle.init(trainer_count={count}): JAX has {len(devices)} "
            f"{devices[0].platform} device(s) here, so each batch is split over those "
            f"{len(devices)} (the summed gradients are the same; batch-norm statistics are "
            "taken per device). On CPU, call paddle.init before any JAX work (or set "
            f"JAX_NUM_CPU_DEVICES={count}) for {count} devices.",
            TrainingWarning,
            stacklevel=user_stacklevel(),
        )
    return devices[:count]


def setup(flags: dict[str, Any]) -> None:
    """Join the processes and build the data mesh that ``flags`` ask for."""
    args = cluster_args(flags)
    count = int(flags.get("trainer_count", 1))
    if args is None and count == 1:
        _MESH.clear()
        return
    if args is not None:
        _start_processes(args)
    import jax
    from jax.sharding import Mesh

    _local_devices(count, bool(flags.get("use_gpu")))
    by_process: dict[int, list[Any]] = {}
    for device in sorted(jax.devices(), key=lambda d: (d.process_index, d.id)):
        by_process.setdefault(device.process_index, []).append(device)
    # every process trains on its first trainer_count devices
    devices = [d for p in sorted(by_process) for d in by_process[p][:count]]
    _MESH.clear()
    _MESH["mesh"] = Mesh(np.array(devices), ("data",))


def mesh() -> Any:
    """The data mesh, or None when training runs on one device."""
    return _MESH.get("mesh")


def process_index() -> int:
    import jax

    return jax.process_index() if mesh() is not None else 0


def multi_process() -> bool:
    """Whether this process is one of several processes of a job."""
    import jax

    return mesh() is not None and jax.process_count() > 1


def process_count() -> int:
    import jax

    return jax.process_count() if mesh() is not None else 1


def device_count() -> int:
    """The devices of the data mesh (1 without one)."""
    m = mesh()
    return 1 if m is None else int(m.devices.size)


_EXCHANGES: dict[str, int] = {}  # exchanges made so far, by name


def exchange(name: str, value: str) -> list[str]:
    """Every process's ``value`` for this process's next exchange called ``name`` (each
    process makes the same exchanges in the same order), in process order: an all-gather
    of short texts through the coordination service's key-value store. It is a host
    exchange, not an XLA collective, so it may run in any thread beside the steps; each
    process removes its key of the exchange before last (every process had read it before
    it wrote its key of the last one)."""
    from jax._src import distributed as jax_distributed

    client = jax_distributed.global_state.client
    count = _EXCHANGES.get(name, 0)
    _EXCHANGES[name] = count + 1
    me, parts = process_index(), process_count()
    client.key_value_set(f"paddle_lite/{name}/{count}/{me}", value)
    if count >= 2:
        client.key_value_delete(f"paddle_lite/{name}/{count - 2}/{me}")
    timeout_ms = COLLECTIVE_TIMEOUT_S * 1000
    return [
        client.blocking_key_value_get(f"paddle_lite/{name}/{count}/{rank}", timeout_ms)
        for rank in range(parts)
    ]


def is_writer() -> bool:
    """Whether this process writes files (only process 0 of a multi-process job)."""
    return process_index() == 0


def pad_rows(feeds: Any, total: int) -> Any:
    """``feeds`` with rows repeated up to ``total`` rows, and a ``VALID`` feed of row
    weights: those ``feeds`` carry (1 when none) and 0 for the added rows.

    Padding repeats the first rows (always valid values: an empty padding sequence
    could turn a mean into 0/0); their weight 0 keeps them out of costs, metrics and
    batch statistics.
    """
    import jax

    real = {name: value for name, value in feeds.items() if name != VALID}
    rows = np.shape(jax.tree_util.tree_leaves(real)[0])[0]
    weights = feeds.get(VALID)
    if weights is None:
        weights = np.ones(rows, np.float32)
    extra = total - rows
    if extra <= 0:
        return {**real, VALID: weights}
    take = np.concatenate([np.arange(rows), np.arange(extra) % rows])
    padded = jax.tree_util.tree_map(lambda x: np.take(x, take, axis=0), real)
    return {**padded, VALID: np.concatenate([weights, np.zeros(extra, np.float32)])}


def _pad_rows(feeds: Any, n: int) -> Any:
    """``feeds`` padded (see ``pad_rows``) to a multiple of ``n`` rows; as they are when
    their rows already divide by ``n``."""
    import jax

    rows = np.shape(jax.tree_util.tree_leaves(feeds)[0])[0]
    extra = -rows % n
    return pad_rows(feeds, rows + extra) if extra else feeds


class LocalRows(NamedTuple):
    """This process's rows of a global batch of ``total`` rows: rows ``p * total / P`` to
    ``(p + 1) * total / P`` of the batch padded for the mesh (what ``put_batch``
    keeps of a whole batch), read and converted by this process alone."""

    feeds: Any
    total: int


def put_batch(feeds: Any) -> Any:
    """A batch's numpy feeds on the device: whole on one device, or split along the
    data axis (this process's rows only, given a whole batch or ``LocalRows``)."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    m = mesh()
    if m is None:
        return jax.device_put(feeds)
    sharding = NamedSharding(m, PartitionSpec("data"))
    if isinstance(feeds, LocalRows):
        total = feeds.total
        return jax.tree_util.tree_map(
            lambda x: jax.make_array_from_process_local_data(
                sharding, x, (total, *np.shape(x)[1:])
            ),
            feeds.feeds,
        )
    feeds = _pad_rows(feeds, m.devices.size)
    if jax.process_count() == 1:
        return jax.device_put(feeds, sharding)
    part, parts = jax.process_index(), jax.process_count()

    def local(x: Any) -> Any:
        rows = np.shape(x)[0] // parts
        return jax.make_array_from_process_local_data(
            sharding, x[part * rows : (part + 1) * rows], np.shape(x)
        )

    return jax.tree_util.tree_map(local, feeds)


def put_replicated(tree: Any) -> Any:
    """Host values (the same on every process) on every device of the mesh."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    m = mesh()
    if m is None:
        return jax.device_put(tree)
    return jax.device_put(tree, NamedSharding(m, PartitionSpec()))


def to_host(tree: Any) -> Any:
    """Numpy copies of device values; a replicated global array reads its local copy."""
    import jax

    def local(x: Any) -> Any:
        if isinstance(x, jax.Array) and not x.is_fully_addressable:
            return x.addressable_data(0)
        return x

    return jax.device_get(jax.tree_util.tree_map(local, tree))


def row_shardings(specs: Any) -> dict[str, Any]:
    """``{name: sharding}`` of the parameters declared ``sharding="rows"``, split by rows
    over the data mesh (none without a mesh, where the setting changes nothing)."""
    m = mesh()
    if m is None:
        return {}
    from jax.sharding import NamedSharding, PartitionSpec

    out = {}
    n = m.devices.size
    for name, spec in specs.items():
        if spec.sharding != "rows":
            continue
        if len(spec.shape) != 2 or spec.shape[0] % n:
            raise ConfigError(
                f"parameter '{name}' has sharding='rows' and shape {spec.shape}; splitting "
                f"by rows over {n} devices needs a 2-D parameter whose row count divides by "
                f"{n} (pad the vocabulary, or pick another trainer_count)."
            )
        out[name] = NamedSharding(m, PartitionSpec("data", None))
    return out


def put_params(values: Any, shardings: dict[str, Any]) -> Any:
    """Parameter values on the mesh: row-split where ``shardings`` says, else replicated."""
    import jax

    rows = {n: v for n, v in values.items() if n in shardings}
    placed = put_replicated({n: v for n, v in values.items() if n not in shardings})
    placed.update({n: jax.device_put(v, shardings[n]) for n, v in rows.items()})
    return {n: placed[n] for n in values}

"""The contenders of a benchmark: paddle_lite's trainer, plain JAX + optax, PyTorch eager.

A side is built by ``setup(groups)`` (the batches of one pass, lists of samples) and
then ``run()`` trains one pass over them and returns when the device has finished.
After the timed runs, ``dispatches()`` counts device calls per step over one more
pass and ``step_bytes()`` asks XLA for the memory of the step program of the pass's
largest batch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jax
import numpy as np

import paddle_lite as paddle
from bench import jax_nets
from paddle_lite._src import config
from paddle_lite._src.feeding import buckets


def lite_padding() -> Callable[[int], int]:
    """The sequence padding paddle_lite's feeder applies (``paddle.init(seq_buckets=...)``)."""
    return buckets.make_policy(config.get("seq_buckets"))


def _shapes(tree: Any) -> Any:
    return jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(np.shape(x), x.dtype), tree)


def xla_step_bytes(jitted: Any, args: tuple[Any, ...]) -> int | None:
    """Arguments + outputs + temporaries - donated aliases of ``jitted``'s program."""
    try:
        stats = jitted.lower(*args).compile().memory_analysis()
    except Exception:
        return None
    if stats is None:
        return None
    total = stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
    return int(total - stats.alias_size_in_bytes)


def _nbytes(tree: Any) -> int:
    return sum(int(np.prod(x.shape)) * np.dtype(x.dtype).itemsize for x in jax.tree.leaves(tree))


class _Counted:
    """Wraps a jitted function: counts calls, keeps the shapes of its largest call."""

    def __init__(self, fn: Any) -> None:
        self.fn, self.calls, self.largest = fn, 0, None

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        if self.largest is None or _nbytes(args[1]) > _nbytes(self.largest[1]):
            self.largest = _shapes(args)
        return self.fn(*args)


def sample_reader(model: Any, groups: list[list[Any]]) -> Callable[[], Iterator[list[Any]]]:
    """The batched reader of the pass's Python samples, as the book reads them."""
    samples = [s for g in groups for s in g]
    source = lambda: iter(samples)  # noqa: E731
    if model.bucketed:
        return paddle.reader.bucket_by_length(source, model.batch)
    return paddle.batch(source, model.batch)


class LiteSide:
    """``trainer.train`` over a reader of Python samples or of numpy column batches."""

    def __init__(self, model: Any, name: str, k: int = 1, columns: bool = False) -> None:
        self.model, self.name, self.k, self.columns = model, name, k, columns
        self.padding = lite_padding() if model.sequence else None
        self._largest_step: tuple[Any, Any] | None = None

    def setup(self, groups: list[list[Any]]) -> None:
        with paddle.layer.name_scope():
            cost, optimizer, self.feeding = self.model.lite()
            parameters = paddle.parameters.create(cost)
            self.trainer = paddle.trainer.SGD(cost, parameters, optimizer)
        self.steps = len(groups)
        if self.columns:
            batches = [self.model.lite_columns(g) for g in groups]
            self.reader = lambda: iter(batches)
            return
        self.reader = sample_reader(self.model, groups)

    def run(self) -> None:
        self.trainer.train(
            self.reader, num_passes=1, feeding=self.feeding, steps_per_dispatch=self.k
        )

    @contextlib.contextmanager
    def _counting(self) -> Iterator[dict[str, _Counted]]:
        """Count calls of the trainer's compiled programs: the run of K >= 1 steps, and
        the pass-end catch-up of lazily decayed sparse rows."""
        (program,) = self.trainer._device.programs.values()
        run_for, catch_up = program.run_for, program.catch_up
        counters = {"run": _Counted(None), "catch_up": _Counted(catch_up)}

        def counted_run(tree: Any) -> _Counted:  # the run over a state of structure ``tree``
            counters["run"].fn = run_for(tree)
            return counters["run"]

        program.run_for, program.catch_up = counted_run, counters["catch_up"]
        try:
            yield counters
        finally:
            program.run_for, program.catch_up = run_for, catch_up

    def dispatches(self) -> float:
        """Calls of the trainer's compiled programs per step, over one more pass."""
        with self._counting() as counters:
            self.run()
        run = counters["run"]
        self._largest_step = (run.fn, run.largest)
        return sum(c.calls for c in counters.values()) / self.steps

    def step_bytes(self) -> int | None:
        return None if self._largest_step is None else xla_step_bytes(*self._largest_step)


class JaxSide:
    """The same network in plain JAX + optax, batches already on the device."""

    name = "plain JAX"

    def __init__(
        self, model: Any, matmul_precision: str, compiler_options: dict | None = None
    ) -> None:
        self.model, self.matmul_precision = model, matmul_precision
        self.compiler_options = compiler_options  # None: XLA's defaults
        self.padding = lite_padding() if model.sequence else None

    def setup(self, groups: list[list[Any]]) -> None:
        net = self.model.jax()
        self.step = jax_nets.make_step(net, self.matmul_precision, self.compiler_options)
        self.carry = jax_nets.init_carry(net)
        self.batches = [jax.device_put(self.model.columns(g, self.padding)) for g in groups]
        jax.block_until_ready((self.carry, self.batches))
        self.steps = len(groups)

    def run(self) -> None:
        carry = self.carry
        for batch in self.batches:
            carry, _ = self.step(carry, batch)
        self.carry = jax.block_until_ready(carry)

    def dispatches(self) -> float:
        return 1.0  # one jitted call per batch, by construction

    def step_bytes(self) -> int | None:
        largest = max(self.batches, key=_nbytes)
        return xla_step_bytes(self.step, _shapes((self.carry, largest)))


class RowJaxSide:
    """Plain JAX + optax fed as paddle_lite is: the same reader of Python samples, each
    batch's numpy arrays built from its rows (``np.stack`` / ``np.asarray``, padded to the
    feeder's length buckets), one donated jitted step that returns the batch's cost and
    its classification errors, left on the device (nothing is read back per step)."""

    name = "plain JAX (Python rows)"

    def __init__(self, model: Any, matmul_precision: str) -> None:
        self.model, self.matmul_precision = model, matmul_precision
        self.padding = lite_padding() if model.sequence else None

    def setup(self, groups: list[list[Any]]) -> None:
        net = self.model.jax()
        self.step = jax_nets.make_scored_step(net, self.matmul_precision)
        self.carry = jax.block_until_ready(jax_nets.init_carry(net))
        self.reader = sample_reader(self.model, groups)
        self.steps = len(groups)
        self.last = None  # the last batch's (cost, errors), on the device

    def run(self) -> None:
        carry = self.carry
        for rows in self.reader():
            batch = self.model.columns(rows, self.padding)
            carry, cost, errors = self.step(carry, batch)
        self.carry, self.last = jax.block_until_ready((carry, (cost, errors)))

    def dispatches(self) -> float:
        return 1.0  # one jitted call per batch, by construction

    def step_bytes(self) -> int | None:
        batches = (self.model.columns(rows, self.padding) for rows in self.reader())
        largest = max(batches, key=_nbytes)
        return xla_step_bytes(self.step, _shapes((self.carry, largest)))


class TorchSide:
    """The same network in PyTorch eager, batches already on the device."""

    def __init__(
        self, model: Any, torch_nets: Any, device: str, channels_last: bool = False
    ) -> None:
        self.model, self.nets, self.device = model, torch_nets, device
        self.channels_last = channels_last
        self.name = "PyTorch channels_last" if channels_last else "PyTorch eager"
        self.padding = (lambda n: n) if model.sequence else None  # each batch's longest

    def setup(self, groups: list[list[Any]]) -> None:
        torch = self.nets.torch
        torch.manual_seed(0)
        self.net = self.model.torch(self.nets)
        if self.channels_last:
            self.net = self.nets.channels_last(self.net)
        self.net.module.to(self.device)
        for state in self.net.optimizer.state.values():  # Adagrad makes its sums up front
            for k, v in state.items():
                state[k] = v.to(self.device) if isinstance(v, torch.Tensor) else v
        if self.net.average is not None:
            self.net = self.net._replace(average=[a.to(self.device) for a in self.net.average])
        self.batches = [
            self.nets.to_device(self.model.columns(g, self.padding), self.device) for g in groups
        ]
        self.steps = len(groups)

    def run(self) -> None:
        for batch in self.batches:
            self.nets.train_step(self.net, batch)
        if self.device == "cuda":
            self.nets.torch.cuda.synchronize()

    def dispatches(self) -> float | None:
        return None  # eager: one kernel launch per operation

    def step_bytes(self) -> int | None:
        return None

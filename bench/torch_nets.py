"""The benchmark's networks in PyTorch eager: the optional third side.

Imported only when ``import torch`` works. Same layers, sizes, summed costs and
optimizer settings as the other sides, written the way a PyTorch user would:
``nn`` modules, ``torch.optim`` (Momentum's L2 as ``weight_decay``, per-parameter
learning rates as parameter groups), and ``nn.LSTM`` over packed sequences, which
stops at each sequence's own length. ``nn.LSTM`` has no peepholes, uses tanh for
the candidate (the book: ReLU) and applies its own input projection to the fc's
``4H`` outputs, so its recurrence does a little more arithmetic than v2's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class TorchNet(NamedTuple):
    """A module, its optimizer and ``loss(module, batch) -> summed cost``."""

    module: nn.Module
    optimizer: torch.optim.Optimizer
    loss: Callable[[nn.Module, dict[str, Any]], Any]
    average: list[Any] | None = None  # running sum of the parameters (ModelAverage)


def train_step(net: TorchNet, batch: dict[str, Any]) -> Any:
    """One eager training step; returns the (device) cost."""
    net.optimizer.zero_grad(set_to_none=True)
    cost = net.loss(net.module, batch)
    cost.backward()
    net.optimizer.step()
    if net.average is not None:
        with torch.no_grad():
            torch._foreach_add_(net.average, list(net.module.parameters()))
    return cost.detach()


def to_device(columns: dict[str, np.ndarray], device: str) -> dict[str, Any]:
    """Numpy columns as tensors on ``device`` (ints as int64 indices); sequence lengths
    also stay on the host, where ``pack_padded_sequence`` wants them."""
    out = {}
    for name, value in columns.items():
        tensor = torch.from_numpy(np.ascontiguousarray(value))
        out[name] = (tensor.long() if value.dtype.kind in "iu" else tensor).to(device)
    if "lengths" in columns:
        out["host_lengths"] = torch.from_numpy(columns["lengths"]).long()
    return out


def _xent(logits: Any, labels: Any) -> Any:
    return F.cross_entropy(logits, labels, reduction="sum")


def _classifier(module: nn.Module, lr: float, l2: float) -> TorchNet:
    """``module`` on ``x`` with a summed cross-entropy, Momentum 0.9 and L2 ``l2``."""
    opt = torch.optim.SGD(module.parameters(), lr=lr, momentum=0.9, weight_decay=l2)
    return TorchNet(module, opt, lambda m, b: _xent(m(b["x"]), b["y"]))


def fit_a_line(dim: int = 13) -> TorchNet:
    module = nn.Linear(dim, 1)
    return TorchNet(
        module,
        torch.optim.SGD(module.parameters(), lr=1e-3),
        lambda m, b: torch.sum(torch.square(m(b["x"]) - b["y"])),
    )


def mlp() -> TorchNet:
    module = nn.Sequential(
        nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10)
    )
    return _classifier(module, 0.1 / 128, 0.0005 * 128)


def lenet() -> TorchNet:
    module = nn.Sequential(
        nn.Unflatten(1, (1, 28, 28)),
        nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Linear(800, 10),
    )  # fmt: skip
    return _classifier(module, 0.1 / 128, 0.0005 * 128)


class _ToChannelsLast(nn.Module):
    def forward(self, x: Any) -> Any:
        return x.contiguous(memory_format=torch.channels_last)


def channels_last(net: TorchNet) -> TorchNet:
    """The same conv net computing in NHWC memory (PyTorch's ``channels_last``): its
    image converted right after ``Unflatten`` and its 4-D weights converted in place
    (the optimizer keeps the same parameter objects)."""
    net.module.insert(1, _ToChannelsLast())
    net.module.to(memory_format=torch.channels_last)
    return net


def _conv_bn(c_in: int, c_out: int, k: int, stride: int, relu: bool) -> nn.Sequential:
    conv = nn.Conv2d(c_in, c_out, k, stride, k // 2, bias=False)
    layers = [conv, nn.BatchNorm2d(c_out, momentum=0.1)]
    return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)


class _Block(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.a = _conv_bn(c_in, c_out, 3, stride, True)
        self.b = _conv_bn(c_out, c_out, 3, 1, False)
        self.short = _conv_bn(c_in, c_out, 1, stride, False) if c_in != c_out else nn.Identity()

    def forward(self, x: Any) -> Any:
        return F.relu(self.b(self.a(x)) + self.short(x))


def resnet(depth: int) -> TorchNet:
    """The book's ResNet for CIFAR (the lr schedule is constant over a benchmark's steps)."""
    n = (depth - 2) // 6
    layers: list[nn.Module] = [nn.Unflatten(1, (3, 32, 32)), _conv_bn(3, 16, 3, 1, True)]
    for c_in, c_out, stride in ((16, 16, 1), (16, 32, 2), (32, 64, 2)):
        layers += [_Block(c_in, c_out, stride)] + [_Block(c_out, c_out, 1) for _ in range(n - 1)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    module = nn.Sequential(*layers)
    return _classifier(module, 0.1 / 128, 0.0002 * 128)


class _NGram(nn.Module):
    def __init__(self, dict_size: int, emb: int = 32, hidden: int = 256) -> None:
        super().__init__()
        self.emb = nn.Embedding(dict_size, emb)
        self.fc1, self.fc2 = nn.Linear(4 * emb, hidden), nn.Linear(hidden, dict_size)

    def forward(self, ids: Any) -> Any:
        h = torch.sigmoid(self.fc1(self.emb(ids[:, :4]).flatten(1)))
        return self.fc2(h * torch.empty_like(h).bernoulli_(0.5))  # v2 dropout: no rescale


def ngram(dict_size: int) -> TorchNet:
    module = _NGram(dict_size)
    biases = [module.fc1.bias, module.fc2.bias]
    rest = [p for p in module.parameters() if all(p is not b for b in biases)]
    groups = [{"params": rest}, {"params": biases, "lr": 6e-3}]
    opt = torch.optim.Adagrad(groups, lr=3e-3, weight_decay=8e-4, eps=1e-6)
    return TorchNet(module, opt, lambda m, b: _xent(m(b["ids"]), b["ids"][:, 4]))


def _reverse_within(x: Any, lengths: Any) -> Any:
    steps = torch.arange(x.shape[1], device=x.device)[None, :]
    idx = torch.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)
    return torch.gather(x, 1, idx[:, :, None].expand_as(x))


class _StackedLSTM(nn.Module):
    def __init__(self, dict_size: int, emb: int, hid: int, levels: int = 3) -> None:
        super().__init__()
        h = hid // 4
        self.emb = nn.Embedding(dict_size, emb)
        self.fc1 = nn.Linear(emb, hid)
        self.lstms = nn.ModuleList(nn.LSTM(hid, h, batch_first=True) for _ in range(levels))
        self.fcs_a = nn.ModuleList(nn.Linear(hid, hid) for _ in range(levels - 1))
        self.fcs_b = nn.ModuleList(nn.Linear(h, hid, bias=False) for _ in range(levels - 1))
        self.out_a, self.out_b = nn.Linear(hid, 2), nn.Linear(h, 2, bias=False)

    def _lstm(self, i: int, x: Any, lengths: Any, host_lengths: Any) -> Any:
        reverse = i % 2 == 1  # levels 2, 4, ... run backwards
        if reverse:
            x = _reverse_within(x, lengths)
        packed = nn.utils.rnn.pack_padded_sequence(x, host_lengths, True, enforce_sorted=False)
        out, _ = self.lstms[i](packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, True, total_length=x.shape[1])
        return _reverse_within(out, lengths) if reverse else out

    def forward(self, word: Any, lengths: Any, host_lengths: Any) -> Any:
        steps = torch.arange(word.shape[1], device=word.device)
        mask = (steps[None, :] < lengths[:, None])[..., None]
        fc = self.fc1(self.emb(word))
        out = self._lstm(0, fc, lengths, host_lengths)
        for i in range(1, len(self.lstms)):
            fc = self.fcs_a[i - 1](fc) + self.fcs_b[i - 1](out)
            out = self._lstm(i, fc, lengths, host_lengths)
        pool_fc = fc.masked_fill(~mask, float("-inf")).amax(1)
        pool_out = out.masked_fill(~mask, float("-inf")).amax(1)
        return self.out_a(pool_fc) + self.out_b(pool_out)


def stacked_lstm(dict_size: int, emb: int, hid: int) -> TorchNet:
    module = _StackedLSTM(dict_size, emb, hid)
    slow = [m.weight for m in [*module.fcs_a, module.out_a]]  # the book's lr x 1e-3 weights
    rest = [p for p in module.parameters() if all(p is not s for s in slow)]
    groups = [{"params": rest}, {"params": slow, "lr": 2e-6}]
    opt = torch.optim.Adam(groups, lr=2e-3, betas=(0.9, 0.999), eps=1e-8)
    average = [torch.zeros_like(p) for p in module.parameters()]
    loss = lambda m, b: _xent(m(b["word"], b["lengths"], b["host_lengths"]), b["label"])  # noqa: E731
    return TorchNet(module, opt, loss, average)

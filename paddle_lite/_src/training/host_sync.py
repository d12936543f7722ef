"""The trainer's side of keeping the user's ``Parameters`` and the device in step.

While ``train`` runs, the parameters live on the device; ``HostSync`` puts the
host values there (with v2's static pruning masks applied), notices values ``set`` on
the host since (``Parameters.version``), and hands the device values back
(``Parameters.receive``) whenever the user's set is read. Parameters the user's set
lacks (``trained_set.own_parameters``) are kept in the trainer's own set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from paddle_lite._src.distributed.parallel import put_params, row_shardings
from paddle_lite._src.parameters import Parameters
from paddle_lite._src.specs import ParamSpec


def pruning_masks(
    specs: Mapping[str, ParamSpec], values: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """0/1 masks keeping, per pruned parameter, its largest ``(1 - ratio) * size``
    values by magnitude (v2's static pruning hook, computed when training starts)."""
    masks = {}
    for name, spec in specs.items():
        if spec.sparsity_ratio is None or spec.is_static:
            continue
        flat = np.abs(np.asarray(values[name])).ravel()
        keep = int(flat.size * (1.0 - spec.sparsity_ratio))
        mask = np.zeros(flat.size, np.float32)
        mask[np.argsort(-flat, kind="stable")[:keep]] = 1.0
        masks[name] = mask.reshape(spec.shape)
    return masks


class HostSync:
    """See the module docstring.

    Args:
        specs: ``{name: ParamSpec}`` of the topology's parameters.
        parameters: the user's ``Parameters``.
        own: the trainer's own ``Parameters`` (those the user's set lacks), or None.
        pull: the trainer's ``pull`` (copies the device values to the host).
    """

    def __init__(
        self,
        specs: Mapping[str, ParamSpec],
        parameters: Parameters,
        own: Parameters | None,
        pull: Callable[[], None],
    ) -> None:
        self.specs, self.parameters, self.own, self.pull = specs, parameters, own, pull
        self._masks: dict[str, np.ndarray] | None = None  # pruning hooks, fixed at first load
        self.version = -1  # the user's set's version the device values reflect

    @property
    def masks(self) -> dict[str, np.ndarray]:
        """The pruning masks, fixed when the values are first loaded (``{}`` before)."""
        return self._masks or {}

    def restore_masks(self, masks: Mapping[str, np.ndarray]) -> None:
        """Take a checkpoint's masks (instead of computing them at the first load)."""
        self._masks = dict(masks)

    def holder(self, name: str) -> Parameters:
        """The ``Parameters`` that keeps ``name`` on the host: the user's, or the
        trainer's own set for a parameter the user's set lacks."""
        own = self.own
        return own if own is not None and name in own else self.parameters

    def device_values(self) -> dict[str, Any]:
        """The topology's parameters as the host holds them, masked, on the device."""
        with self.parameters.lock:
            self.version = self.parameters.version
            return put_params(self.host_values(), row_shardings(self.specs))

    def host_values(self) -> dict[str, np.ndarray]:
        """The topology's parameters as the host holds them (copies), masked."""
        host = self.parameters
        with host.lock:
            if host.holder != self.pull:
                host.refresh()  # another trainer may hold newer values
            values = {n: np.array(self.holder(n).stored(n)) for n in self.specs}
        if self._masks is None:
            self._masks = pruning_masks(self.specs, values)
        for name, mask in self._masks.items():
            values[name] = values[name] * mask
        return values

    def changed(self) -> bool:
        """Whether values were ``set`` on the host since ``device_values``."""
        return self.parameters.version != self.version

    def attach(self) -> None:
        """Reads of the user's set now pull the device values first."""
        self.parameters.attach(self.pull)

    def detach(self) -> None:
        if self.parameters.holder == self.pull:
            self.parameters.detach()

    def receive(self, host_values: Mapping[str, np.ndarray]) -> None:
        """Store the device's values (copied to the host) in the sets that hold them."""
        for name, value in host_values.items():
            # A copy: the device buffer is donated to the next step.
            self.holder(name).receive({name: np.array(value)})

"""What v2's ``parse_network`` printed, cut to the fields v2's layer tests were about.

v2's layer tests built networks and printed the ModelConfig ``parse_network`` gave; the
ports assert that config instead: each layer's name, type, size, activation, inputs (with
the parameter each input reads) and bias parameter, each parameter's size and dims, and
the network's input and output layers. The expected rows are written from v2's
``config_parser`` and ``trainer_config_helpers`` (the tests say which rule gives each
value) and from the golden configs v2 shipped (``tests/integration/golden/v2_configs``).
"""

from __future__ import annotations

from typing import Any

Row = tuple[str, str, int, str, list[tuple[str, str]], str]


def row(
    name: str, type: str, size: int, *inputs: str | tuple[str, str], act: str = "", bias: str = ""
) -> Row:
    """One layer as v2 printed it; an input is a layer name, or ``(layer, parameter)``."""
    links = [(i, "") if isinstance(i, str) else i for i in inputs]
    return (name, type, size, act, links, bias)


def data_row(name: str, size: int) -> Row:
    """A data layer as v2 printed it."""
    return row(name, "data", size)


def layers_of(config: Any) -> list[Row]:
    return [
        (
            conf.name,
            conf.type,
            conf.size,
            conf.active_type,
            [(i.input_layer_name, i.input_parameter_name) for i in conf.inputs],
            conf.bias_parameter_name,
        )
        for conf in config.layers
    ]


def parameters_of(config: Any) -> dict[str, tuple[int, tuple[int, ...]]]:
    return {p.name: (p.size, tuple(p.dims)) for p in config.parameters}


def assert_parsed(
    config: Any,
    layers: list[Row],
    parameters: dict[str, tuple[int, tuple[int, ...]]],
    inputs: list[str],
    outputs: list[str],
) -> None:
    """``config`` (a ``parse_network`` result) holds exactly these layers, in this order,
    these parameters (``{name: (size, dims)}``) and these input and output layers."""
    assert layers_of(config) == layers
    assert parameters_of(config) == parameters
    assert list(config.input_layer_names) == inputs
    assert list(config.output_layer_names) == outputs


def groups_of(config: Any) -> list[tuple[Any, ...]]:
    """Each recurrent group (a sub-model other than ``root``) as ``(name, layer names,
    reversed, in-links, memories, out-links)``; a link is ``(layer, link)``, a memory
    ``(layer, link, boot layer)``."""
    return [
        (
            sub.name,
            list(sub.layer_names),
            bool(sub.reversed),
            [(link.layer_name, link.link_name) for link in sub.in_links],
            [(m.layer_name, m.link_name, m.boot_layer_name or "") for m in sub.memories],
            [(link.layer_name, link.link_name) for link in sub.out_links],
        )
        for sub in config.sub_models
        if sub.name != "root"
    ]

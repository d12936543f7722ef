"""Pictures of topologies: Graphviz DOT text, SVG through ``dot``, an HTML table.

Every layer is one box (name, kind, output size, activation); every parameter is one
ellipse (name, shape), drawn once however many layers use it, with a dashed edge to each
layer that uses it. So layers that share a parameter by name visibly point at the same
ellipse. A recurrent group is a dashed cluster of its step's layers. ``to_dot`` needs
nothing; ``to_svg`` runs the Graphviz ``dot`` program when it is installed and returns
``None`` otherwise, and ``to_html`` is the table Jupyter shows then.
"""

from __future__ import annotations

import html
import shutil
import subprocess
from typing import Any

from paddle_lite._src.proto.views import describe, groups, step_of, sub_model, with_steps

DOT_TIMEOUT_S = 20


def _quote(text: str) -> str:
    """A DOT double-quoted string (backslashes and quotes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def param_users(topology: Any) -> dict[str, list[str]]:
    """``{parameter name: [names of the layers that use it]}`` in topology order.

    Args:
        topology: a ``paddle.topology.Topology``.

    Returns:
        One entry per parameter of the topology; a parameter shared by name lists
        every layer that declares it (for a recurrent group, the layers of its step).
    """
    users: dict[str, list[str]] = {name: [] for name in topology.params}
    for node, _ in with_steps(topology.nodes):
        if step_of(node) is not None:  # a group's parameters are its step layers'
            continue
        for spec in node.params:
            if node.name not in users[spec.name]:
                users[spec.name].append(node.name)
    return users


def _layer_label(node: Any) -> str:
    act = getattr(node.activation, "name", "") or ""
    parts = [node.name, f"{node.kind}: {describe(node.spec)}"]
    if act and act != "linear":
        parts[1] += f" ({act})"
    return "\\n".join(p.replace("\\", "\\\\").replace('"', '\\"') for p in parts)


def _layer_lines(nodes: Any, outputs: set[str], indent: str = "  ") -> list[str]:
    """One box per layer; a group is a dashed cluster holding its step's layers."""
    lines = []
    for node in nodes:
        step = step_of(node)
        if step is not None:
            label = _layer_label(node).replace("\\n", " ")
            lines.append(f"{indent}subgraph {_quote('cluster_' + node.name)} {{")
            lines.append(f'{indent}  label="{label}"; style="dashed,rounded";')
            lines += _layer_lines(step.nodes, outputs, indent + "  ")
            lines.append(f"{indent}}}")
            continue
        style = 'shape=box, style="rounded"'
        if node.kind == "data":
            style = 'shape=box, style="rounded,filled", fillcolor="#e3f2fd"'
        elif node.name in outputs:
            style = 'shape=box, style="rounded,bold"'
        lines.append(f'{indent}{_quote("L:" + node.name)} [label="{_layer_label(node)}", {style}];')
    return lines


def _edge(a: str, b: str, style: str = "") -> str:
    return f"  {_quote('L:' + a)} -> {_quote('L:' + b)}" + (f" [{style}]" if style else "") + ";"


def _group_edges(node: Any, step: Any, nodes: Any) -> list[str]:
    """A group's links: outer sequences into the step, boot layers into memories, each
    memory from the layer it remembers (the previous step), step outputs out."""
    model = sub_model(node, step, nodes)
    lines = [_edge(link.layer_name, link.link_name) for link in model.in_links]
    for m in model.memories:
        if m.boot_layer_name is not None:
            lines.append(_edge(m.boot_layer_name, m.link_name, "style=dashed"))
        if not m.is_static:
            lines.append(
                _edge(m.layer_name, m.link_name, 'style=dotted, constraint=false, label="t-1"')
            )
    return lines + [_edge(link.layer_name, link.link_name) for link in model.out_links]


def _input_edges(topology: Any) -> list[str]:
    """Edges from each layer's inputs; a group's links in place of its own edges."""
    found = list(groups(topology.nodes))
    group_names = {node.name for node, _, _ in found}
    lines = []
    for node, _ in with_steps(topology.nodes):
        if node.name not in group_names:
            lines += [_edge(p.name, node.name) for p in node.inputs if p.name not in group_names]
    for node, step, beside in found:
        lines += _group_edges(node, step, beside)
    return lines


def _param_lines(topology: Any, users: dict[str, list[str]]) -> list[str]:
    lines = []
    for name, spec in topology.params.items():
        shape = "x".join(map(str, spec.shape))
        shared = len(users[name]) > 1
        fill = "#ffe0b2" if shared else "#f5f5f5"
        label = f"{name}\\n{shape}" + (f"\\nshared by {len(users[name])}" if shared else "")
        label = label.replace('"', '\\"')
        lines.append(
            f'  {_quote("P:" + name)} [label="{label}", shape=ellipse, style=filled, '
            f'fillcolor="{fill}", fontsize=10];'
        )
    return lines


def to_dot(topology: Any, name: str = "topology") -> str:
    """The topology as Graphviz DOT text (no dependency needed to produce it).

    Layer ``L`` is node ``"L:<name>"``; parameter ``P`` is node ``"P:<name>"``, once,
    with a dashed edge ``"P:<name>" -> "L:<user>"`` to every layer that uses it. A
    recurrent group is a cluster ``"cluster_<name>"`` of its step's layers, linked to
    the outer layers it reads and the gather agents that read it; a memory has a dotted
    ``t-1`` edge from the layer it remembers.

    Args:
        topology: a ``paddle.topology.Topology``.
        name: the graph's name.

    Returns:
        DOT text for ``dot -Tsvg`` (top to bottom: data layers first, outputs last).

    Example:
        >>> import paddle_lite as paddle
        >>> x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
        >>> y = paddle.layer.fc(input=x, size=2, parameter_name="w")
        >>> dot = paddle.topology.Topology(y).to_dot()
        >>> '"P:w.w0" -> "L:__fc_layer_0__"' in dot
        True
    """
    users = param_users(topology)
    lines = [f"digraph {_quote(name)} {{", "  rankdir=TB;", '  node [fontname="Helvetica"];']
    lines += _layer_lines(topology.nodes, {layer.name for layer in topology.layers})
    lines += _param_lines(topology, users)
    lines += _input_edges(topology)
    for pname, layers in users.items():
        for layer in layers:
            lines.append(
                f"  {_quote('P:' + pname)} -> {_quote('L:' + layer)} "
                '[style=dashed, color="#e65100", arrowhead=empty];'
            )
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_program() -> str | None:
    """The path of the Graphviz ``dot`` program, or ``None`` when it is not installed."""
    return shutil.which("dot")


def to_svg(topology: Any) -> str | None:
    """The topology drawn by Graphviz as SVG text, or ``None`` without ``dot``.

    Args:
        topology: a ``paddle.topology.Topology``.

    Returns:
        SVG text, or ``None`` when the ``dot`` program is missing or fails.
    """
    program = dot_program()
    if program is None:
        return None
    try:
        done = subprocess.run(
            [program, "-Tsvg"],
            input=to_dot(topology).encode("utf-8"),
            capture_output=True,
            timeout=DOT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    svg = done.stdout.decode("utf-8")
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else None


def to_html(topology: Any) -> str:
    """The topology as an HTML table: one row per layer with its output and parameters.

    A shared parameter is listed under every layer that uses it and marked with the
    other users, so the table shows the sharing the picture draws as edges.

    Args:
        topology: a ``paddle.topology.Topology``.

    Returns:
        An HTML ``<table>`` (escaped text; no scripts, no styles outside the table).
    """
    users = param_users(topology)
    rows = []
    for node, depth in with_steps(topology.nodes):
        params = []
        for spec in node.params if step_of(node) is None else ():
            shape = "x".join(map(str, spec.shape))
            others = [u for u in users[spec.name] if u != node.name]
            note = f" (shared with {', '.join(others)})" if others else ""
            params.append(f"{spec.name} [{shape}]{note}")
        cells = (
            "\u00a0\u00a0" * depth + node.name,
            node.kind,
            describe(node.spec),
            "<br>".join(html.escape(p) for p in params),
            html.escape(", ".join(i.name for i in node.inputs)),
        )
        tds = "".join(f"<td>{c if i >= 3 else html.escape(c)}</td>" for i, c in enumerate(cells))
        rows.append(f"<tr>{tds}</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("layer", "type", "output", "parameters", "inputs"))
    total = sum(spec.size for spec in topology.params.values())
    caption = f"{len(topology.nodes)} layers, {len(topology.params)} parameters ({total:,} values)"
    return (
        f'<table class="paddle-lite-topology"><caption>{caption}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def repr_html(topology: Any) -> str | None:
    """Jupyter's HTML view: the table, only when no SVG picture can be drawn.

    Notebook front ends prefer HTML to SVG, so returning ``None`` when ``dot`` draws
    the picture lets the picture show.
    """
    return to_html(topology) if to_svg(topology) is None else None

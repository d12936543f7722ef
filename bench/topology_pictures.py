"""Draw the topology pictures of the docs with ``Topology.to_dot`` and Graphviz.

``docs/img/ranking_model.svg``: the v2 design doc's three-tower ranking model
(``examples/demo.py``). ``docs/img/machine_translation_generator.svg``: chapter 8's
generator, ``seq_to_seq_net(30000, 30000, is_generating=True)`` from
``book/08.machine_translation/train.py``. Needs Graphviz's ``dot`` program.
Run: ``python bench/topology_pictures.py``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys

import paddle_lite as paddle

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "img"


def _module(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pictures() -> dict[str, object]:
    """File name -> the output layer(s) drawn in it."""
    demo = _module(ROOT / "examples" / "demo.py", "demo")
    chapter8 = _module(ROOT / "book" / "08.machine_translation" / "train.py", "chapter8")
    with paddle.layer.name_scope():
        ranking = demo.ranking_model()
    with paddle.layer.name_scope():
        generator = chapter8.seq_to_seq_net(30000, 30000, is_generating=True)
    return {"ranking_model.svg": ranking, "machine_translation_generator.svg": generator}


def main() -> int:
    if shutil.which("dot") is None:
        print("Graphviz's dot program is needed (apt-get install graphviz)", file=sys.stderr)
        return 1
    for name, output in pictures().items():
        dot = paddle.topology.Topology(output).to_dot()
        svg = subprocess.run(
            ["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=True
        )
        (OUT / name).write_text(svg.stdout)
        print("wrote", OUT / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

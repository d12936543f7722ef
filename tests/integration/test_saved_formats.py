"""Files an earlier paddle_lite wrote load in this one, with the same values.

``golden/formats/v0.1.0/`` was written by ``golden/formats/make_formats.py`` with the
library as it was before its modules moved into folders: the formats store no module
paths, so a topology, an inference file, parameters (tar and npz) and a checkpoint keep
loading, give the outputs they gave, and a resume from the checkpoint trains the pass
that version trained.
"""

from __future__ import annotations

import importlib.util
import pathlib
import shutil

import numpy as np
import pytest

import paddle_lite as paddle

GOLDEN = pathlib.Path(__file__).parent / "golden" / "formats"
VERSIONS = sorted(p for p in GOLDEN.iterdir() if p.is_dir())


def _maker():
    spec = importlib.util.spec_from_file_location("make_formats", GOLDEN / "make_formats.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKER = _maker()


@pytest.fixture(params=VERSIONS, ids=lambda p: p.name)
def written(request):
    return request.param


def _values(parameters):
    return {name: parameters.get(name) for name in parameters.keys()}


def _inputs():
    return [sample[:2] for sample in MAKER.samples()[:5]]


def test_parameters_load_from_tar_npz_and_checkpoint_alike(written):
    with open(written / "parameters.tar", "rb") as f:
        from_tar = _values(paddle.parameters.Parameters.from_tar(f))
    from_npz = _values(paddle.parameters.Parameters.load_npz(str(written / "parameters.npz")))
    with open(written / "checkpoint" / "parameters.tar", "rb") as f:
        checkpointed = _values(paddle.parameters.Parameters.from_tar(f))
    out, cost = MAKER.network()
    assert sorted(from_tar) == sorted(paddle.parameters.create(cost).keys())
    for name, value in from_tar.items():
        np.testing.assert_array_equal(from_npz[name], value, err_msg=name)
        np.testing.assert_array_equal(checkpointed[name], value, err_msg=name)


def test_a_saved_topology_infers_what_it_inferred(written):
    with open(written / "parameters.tar", "rb") as f:
        parameters = paddle.parameters.Parameters.from_tar(f)
    want = np.load(written / "outputs.npz")["probs"]
    topology = paddle.topology.Topology.deserialize(str(written / "topology.json"))
    (out,) = topology.outputs
    got = paddle.infer(output_layer=out, parameters=parameters, input=_inputs())
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    inferer = paddle.inference.Inference(
        parameters=parameters, fileobj=str(written / "inference.json")
    )
    np.testing.assert_allclose(inferer.infer(input=_inputs()), want, rtol=1e-5, atol=1e-7)


def test_a_saved_checkpoint_resumes_where_it_stopped(written, tmp_path):
    checkpoint = tmp_path / "checkpoint"  # loading takes the folder's lock: work on a copy
    shutil.copytree(written / "checkpoint", checkpoint)
    _, cost = MAKER.network()
    resumed = MAKER.resume_one_pass(cost, str(checkpoint))
    want = np.load(written / "resumed.npz")
    assert sorted(resumed) == sorted(want.files)
    for name, value in resumed.items():
        np.testing.assert_allclose(value, want[name], rtol=1e-5, atol=1e-6, err_msg=name)

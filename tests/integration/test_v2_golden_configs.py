"""Conformance with v2's golden ModelConfig files, one test per config.

Each of the 56 network configs of v2's ``trainer_config_helpers/tests/configs`` is written
with paddle_lite's v2 API in ``v2_configs/<config>.py``; its ``Topology(...).proto()`` is
compared field by field (see ``v2_golden``) with the ModelConfig v2 produced for it,
``golden/v2_configs/<config>.protostr``. A config matches when every compared field is
equal. Every config that does not match is listed in ``MISMATCHES`` with the reason, and is
a strict xfail: a change that makes it match fails here until the entry is removed. A listed
config must also fail the way its reason says: "needs <layer>" by the layer's
``NotImplementedError`` (or ``LayerConfigError`` for an unsupported option), a network
paddle_lite refuses by ``LayerConfigError``, any other reason (a field that differs) by the
comparison's ``AssertionError``; failing another way is an error to look at (a layer that
has arrived but writes a field differently from v2, say).
"""

from __future__ import annotations

import pytest

from paddle_lite.errors import LayerConfigError
from tests.integration import protostr, v2_golden

_RUN_CHECKED = (
    "v2's config parser accepted it and v2 failed when the network ran; paddle_lite "
    "refuses it when the layer is built (with that check lifted, every compared field "
    "matches): "
)


def _needs(layer: str) -> str:
    return f"needs {layer}"


MISMATCHES: dict[str, str] = {}

# Networks v2's config parser accepted and v2 failed to run: they build and match here too,
# each layer v2 could not run with a LayerConfigWarning (compiling it raises). One more
# warns and runs: multibox_loss over a label v2 read in its own way.
RUN_FAILS: dict[str, str] = {
    "test_cost_layers": "lambda_cost reads a 100-wide input as its one score per "
    "document, huber_regression_cost regresses a 200-wide input on an integer label, and "
    "ctc and warp_ctc read a 200-wide input for 5000 classes",
    "test_cost_layers_with_weight": "square_error_cost compares a 10-wide input with a "
    "1-wide integer label",
    "test_sequence_pooling": "one data layer 'dat_in' (a nested sequence here) is pooled "
    "with stride=5 (v2's SequencePoolLayer: 'sequence stride pooling is invalid for "
    "hasSubseq') as well as with agg_level TO_SEQUENCE (which needs sub-sequences)",
    "last_first_seq": "one data layer 'data' (a nested sequence here) is read with "
    "stride=5 (refused for sub-sequences when run) as well as with agg_level TO_SEQUENCE, "
    "as in test_sequence_pooling",
    "test_expand_layer": "one data layer 'data' is expanded FROM_SEQUENCE (v2's "
    "ExpandLayer wants one row per sub-sequence of 'data_seq') and FROM_NO_SEQUENCE (one "
    "row per sequence), which one batch of samples cannot both give",
    "projections": "table_projection reads the float output of a mixed layer (v2's "
    "TableProjection takes integer ids), and the last mixed layer adds sequences "
    "(context_projection, operators) to the rows of images (conv_projection)",
    "test_rnn_group": "in the SubsequenceInput group the fc adds the step's sub-sequence "
    "(one row per step) to a non-sequence memory of that same fc (a sequence): inputs, "
    "and a memory, of different sequence levels",
    "test_multibox_loss_layer": "the label has rows of 24 values; v2 read them 6 per box "
    "from the batch's label values laid end to end (it warns, and runs as v2 read it)",
}

CONFIGS = v2_golden.config_names()
_MATCHED: list[str] = []
_MISSED: list[str] = []


def _raises(reason: str) -> tuple[type[BaseException], ...]:
    """The exceptions a config listed with ``reason`` may fail with."""
    if reason.startswith("needs "):
        return (NotImplementedError, LayerConfigError)
    if reason.startswith(_RUN_CHECKED):
        return (LayerConfigError,)
    return (AssertionError,)


def _param(name: str) -> object:
    if name not in MISMATCHES:
        return name
    reason = MISMATCHES[name]
    mark = pytest.mark.xfail(strict=True, reason=reason, raises=_raises(reason))
    return pytest.param(name, marks=mark)


class _MatchReport:
    """Adds a line to pytest's final summary: how many configs matched exactly."""

    def pytest_terminal_summary(self, terminalreporter):
        ran = len(_MATCHED) + len(_MISSED)
        terminalreporter.write_line(
            f"v2 golden ModelConfigs: {len(_MATCHED)} of {ran} configs run match exactly "
            f"({len(CONFIGS)} configs in all)"
        )


@pytest.fixture(scope="module", autouse=True)
def _report_matches(request: pytest.FixtureRequest):
    report = _MatchReport()
    request.config.pluginmanager.register(report, "v2_golden_match_report")
    yield


def test_every_config_has_a_golden_and_a_network():
    """The 56 configs of v2's file_list.sh, each with its paddle_lite network module."""
    assert len(CONFIGS) == 56
    modules = {p.stem for p in (v2_golden.HERE / "v2_configs").glob("*.py")} - {"__init__"}
    assert modules == set(CONFIGS)
    assert set(MISMATCHES) <= set(CONFIGS)


@pytest.mark.parametrize("name", [_param(name) for name in CONFIGS])
def test_config_matches_v2_golden(name):
    _MISSED.append(name)
    differences, unrunnable = v2_golden.compare(name)
    assert not differences, f"{name}: {len(differences)} differences\n" + "\n".join(differences)
    # a network v2 parsed but could not run builds here too, with a warning per such layer
    assert bool(unrunnable) == (name in RUN_FAILS), unrunnable
    _MISSED.remove(name)
    _MATCHED.append(name)


def test_protostr_reader():
    text = """
    type: "nn"  # a comment
    layers { name: "a\\"b" size: 3 active_type: "" }
    layers {
      name: 'c'
      inputs { input_layer_name: "a" }
      coeff: 1e-05 reversed: false
    }
    parameters < dims: 1 dims: -2 initial_std: 0.5 >
    """
    msg = protostr.parse(text)
    assert msg["type"] == ["nn"]
    assert [layer["name"] for layer in msg["layers"]] == [['a"b'], ["c"]]
    assert msg["layers"][0]["size"] == [3] and msg["layers"][0]["active_type"] == [""]
    assert msg["layers"][1]["inputs"] == [{"input_layer_name": ["a"]}]
    assert msg["layers"][1]["coeff"] == [1e-05] and msg["layers"][1]["reversed"] == [False]
    assert msg["parameters"] == [{"dims": [1, -2], "initial_std": [0.5]}]
    with pytest.raises(ValueError, match="missing"):
        protostr.parse("layers { name: 'x'")


def test_differences_name_the_field():
    want = v2_golden.view_golden(protostr.parse('layers { name: "x" type: "fc" size: 2 }'))
    got = dict(want, layers=[dict(want["layers"][0], size=3)])
    assert v2_golden.differences(want, got) == [".layers[0].size: want 2, got 3"]
    assert v2_golden.differences(want, want) == []

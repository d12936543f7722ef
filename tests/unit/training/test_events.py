"""Events: v2 fields, lazy cost and metrics (the progress handler: test_progress.py)."""

import pytest

import paddle_lite as paddle

ev = paddle.event


def test_fields_and_lazy_values():
    calls = []

    def cost():
        calls.append("cost")
        return 1.5

    end = ev.EndIteration(pass_id=1, batch_id=2, cost=cost, evaluator=lambda: {"err": 0.25})
    assert (end.pass_id, end.batch_id) == (1, 2) and calls == []
    assert end.cost == 1.5 and end.metrics == {"err": 0.25} and calls == ["cost"]
    assert ev.EndPass(3, evaluator={"a": 1.0}).metrics == {"a": 1.0}
    assert ev.TestResult(evaluator={"e": 0.1}, cost=2.0).cost == 2.0
    assert ev.EndPass(0).metrics == {}
    with pytest.raises(TypeError, match="metrics mapping"):
        ev.EndPass(0, evaluator=3)

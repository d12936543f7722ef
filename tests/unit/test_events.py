"""Events: v2 fields, lazy cost and metrics, and the progress-bar handler."""

import io

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


def test_progress_handler_draws_a_bar_per_pass():
    pytest.importorskip("tqdm", reason="the progress extra is not installed")
    out = io.StringIO()
    handler = ev.progress(total=3, every=1, file=out)
    for pass_id in range(2):
        handler(ev.BeginPass(pass_id))
        for batch_id in range(3):
            handler(
                ev.EndIteration(
                    pass_id, batch_id, cost=2.0, evaluator={"classification_error_evaluator": 0.5}
                )
            )
        handler(ev.EndPass(pass_id, evaluator={"classification_error_evaluator": 0.25}))
    text = out.getvalue()
    assert "pass 1" in text and "pass 2" in text and "3/3" in text  # shown from 1
    assert "cost=2" in text and "classification_error=0.25" in text

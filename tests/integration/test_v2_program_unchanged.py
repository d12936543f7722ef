"""``python -m paddle_lite.v2 program.py`` runs a v2 program file as it was written
(``import paddle.v2 as paddle``, ``from paddle.trainer_config_helpers import *``) and
gives what the same program rewritten for paddle_lite gives in-process; its arguments,
``__name__``, exit status and uncaught exceptions are those of ``python program.py``."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import paddle_lite as paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

V2_PROGRAM = textwrap.dedent(
    """
    import sys

    import numpy as np
    import paddle.v2 as paddle
    from paddle.trainer_config_helpers import *
    from paddle.trainer.PyDataProvider2 import dense_vector
    from paddle.v2.layer import fc
    from paddle.v2.reader.creator import np_array


    def main():
        paddle.init(use_gpu=False, trainer_count=1)
        rng = np.random.RandomState(7)
        xs = rng.normal(size=(16, 3)).astype("float32")
        ys = (xs.dot([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
        x = paddle.layer.data(name="x", type=dense_vector(3))
        y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
        hidden = fc(input=x, size=4, act=TanhActivation(), param_attr=ParamAttr(initial_std=0.5))
        pred = fc_layer(input=hidden, size=1, act=LinearActivation())
        cost = paddle.layer.square_error_cost(input=pred, label=y)
        parameters = paddle.parameters.create(cost)
        optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01)
        trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)

        def handler(event):
            if isinstance(event, paddle.event.EndIteration):
                print("cost %d %d %r" % (event.pass_id, event.batch_id, event.cost))

        rows = np_array(np.hstack([xs, ys]))
        reader = paddle.reader.map_readers(lambda row: (row[:3], row[3:]), rows)
        trainer.train(paddle.batch(reader, 4), num_passes=2, event_handler=handler)


    if __name__ == "__main__":
        print("argv %r" % sys.argv[1:])
        main()
        sys.exit(int(sys.argv[1]))
    """
)


def _rewritten_for_paddle_lite():
    """The same program with ``import paddle_lite as paddle``; its printed costs."""
    L, A, DT = paddle.layer, paddle.activation, paddle.data_type
    paddle.init(use_gpu=False, trainer_count=1)
    rng = np.random.RandomState(7)
    xs = rng.normal(size=(16, 3)).astype("float32")
    ys = (xs.dot([[1.0], [-2.0], [0.5]]) + 0.3).astype("float32")
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    hidden = L.fc(input=x, size=4, act=A.Tanh(), param_attr=paddle.attr.ParamAttr(initial_std=0.5))
    pred = L.fc(input=hidden, size=1, act=A.Linear())
    cost = L.square_error_cost(input=pred, label=y)
    parameters = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(momentum=0.9, learning_rate=0.01)
    trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append((event.pass_id, event.batch_id, event.cost))

    samples = list(zip(xs, ys, strict=True))
    trainer.train(paddle.batch(lambda: iter(samples), 4), num_passes=2, event_handler=handler)
    return costs


def _run(tmp_path, source, *args, pythonpath=()):
    program = tmp_path / "program.py"
    program.write_text(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, *pythonpath]))
    return subprocess.run(
        [sys.executable, "-m", "paddle_lite.v2", str(program), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )


def test_an_unmodified_v2_program_trains_as_its_paddle_lite_rewrite(tmp_path):
    done = _run(tmp_path, V2_PROGRAM, "3", "--flag")
    assert done.returncode == 3, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "argv ['3', '--flag']"
    printed = [line.split() for line in lines[1:]]
    assert all(words[0] == "cost" for words in printed)
    got = [(int(p), int(b), float(c)) for _, p, b, c in printed]
    want = _rewritten_for_paddle_lite()
    assert (
        [g[:2] for g in got] == [w[:2] for w in want] == [(p, b) for p in (0, 1) for b in range(4)]
    )
    np.testing.assert_allclose([g[2] for g in got], [w[2] for w in want], rtol=1e-6)
    assert got[-1][2] < got[0][2]  # it trained


def test_an_uncaught_exception_prints_from_the_programs_frames(tmp_path):
    source = (
        "import paddle.v2 as paddle\n\ndef f():\n    paddle.layer.fc(input=None, size=2)\n\nf()\n"
    )
    done = _run(tmp_path, source)
    assert done.returncode == 1
    trace = done.stderr.splitlines()
    assert trace[0] == "Traceback (most recent call last):"
    assert trace[1] == f'  File "{tmp_path / "program.py"}", line 6, in <module>'
    assert "runpy" not in done.stderr and "v2_imports" not in done.stderr
    assert trace[-2].startswith("paddle_lite.errors.LayerTypeError: layer '__fc_layer_0__'")


def test_a_real_paddle_on_the_path_is_refused(tmp_path):
    (tmp_path / "site" / "paddle").mkdir(parents=True)
    (tmp_path / "site" / "paddle" / "__init__.py").write_text("")
    done = _run(tmp_path, "print('ran')\n", pythonpath=[str(tmp_path / "site")])
    assert done.returncode == 2 and done.stdout == ""
    assert "a real PaddlePaddle is installed as 'paddle'" in done.stderr
    assert str(tmp_path / "site" / "paddle" / "__init__.py") in done.stderr

"""Book chapters 1-3 run as shipped, on small data, for a pass or a few batches."""

import importlib.util
import json
import os
import pathlib
import random
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

import paddle_lite as paddle

try:
    from tests.unit._dataset_fixtures import shared_datasets
except ImportError:  # pragma: no cover - run from inside tests/
    from unit._dataset_fixtures import shared_datasets

BOOK = pathlib.Path(__file__).resolve().parents[2] / "book"
SHARED = shared_datasets()


def _run(chapter, script="train.py", **settings):
    """Run a chapter's program as its notebook runs, with ``settings``; its variables."""
    spec = importlib.util.spec_from_file_location("run_chapter", BOOK / "run_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_chapter(chapter, script, **settings)


def _definitions(chapter):
    spec = importlib.util.spec_from_file_location("run_chapter", BOOK / "run_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.definitions(chapter)


def test_definitions_give_the_networks_without_running_anything(tmp_path, monkeypatch):
    # benchmarks build the book's networks from these: no data read, nothing saved
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path / "no_data"))
    wanted = {
        "02.recognize_digits": "NETWORKS",
        "03.image_classification": "resnet_cifar10",
        "04.word2vec": "wordemb",
        "05.recommender_system": "get_usr_combined_features",
        "06.understand_sentiment": "stacked_lstm_net",
        "07.label_semantic_roles": "db_lstm",
        "08.machine_translation": "seq_to_seq_net",
    }
    for chapter, name in wanted.items():
        assert hasattr(_definitions(chapter), name), chapter
    book = _definitions("02.recognize_digits")
    with paddle.layer.name_scope():
        images = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
        predict = book.NETWORKS["mlp"](images)
    assert predict.size == 10 and book.num_passes == 5  # the settings' values, as written
    assert list(tmp_path.iterdir()) == []


def _images(n_train, n_test, dim, classes, seed):
    """Train and test readers of separable synthetic images drawn around the same class centres.

    Values lie in [-1, 1] like v2's scaled MNIST pixels.
    """
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-0.8, 0.8, size=(classes, dim))
    labels = rng.integers(0, classes, n_train + n_test)
    x = np.clip(centers[labels] + 0.1 * rng.normal(size=(len(labels), dim)), -1, 1)
    samples = list(zip(x.astype(np.float32), labels.tolist(), strict=True))
    return (lambda: iter(samples[:n_train])), (lambda: iter(samples[n_train:]))


def test_chapter1_fit_a_line_and_its_inference(tmp_path, monkeypatch, capsys):
    # a process that imported ipykernel (as another test may) is not Jupyter's kernel
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    state = _run("01.fit_a_line", num_passes=2, save_dir=str(tmp_path), plot=True)
    out = capsys.readouterr().out
    assert "Test 1, Cost" in out and out.count("label=") == 5
    assert 0 < state["result"].cost < 200  # squared error per house, from ~600 before training
    assert len(state["history"]) == 2 and state["history"].cost[1] < state["history"].cost[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fit_a_line.tar",
        "params_pass_0.tar",
        "train_and_test.png",
    ]
    assert (tmp_path / "train_and_test.png").read_bytes()[:4] == b"\x89PNG"
    saved = paddle.parameters.Parameters.from_tar(str(tmp_path / "fit_a_line.tar"))
    assert saved.keys() == ["___fc_layer_0__.w0", "___fc_layer_0__.wbias"]
    # infer.py predicts with what train.py saved: x @ w + b over the test houses
    infer = _run("01.fit_a_line", "infer.py", save_dir=str(tmp_path))
    x = np.stack([row[0] for row in paddle.dataset.uci_housing.test()()]).astype(np.float64)
    want = x @ saved.get("___fc_layer_0__.w0") + saved.get("___fc_layer_0__.wbias")
    np.testing.assert_allclose(infer["probs"], want, rtol=1e-5)
    assert capsys.readouterr().out.count("Predicted price: $") == 102


def test_a_setting_the_chapter_does_not_have_is_an_error():
    with pytest.raises(TypeError, match=r"no setting \['num_pases'\]; its settings are"):
        _run("01.fit_a_line", num_pases=2)


def test_chapter1_infer_without_trained_parameters_says_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="train first .* use_v2_model = True"):
        _run("01.fit_a_line", "infer.py", save_dir=str(tmp_path))


def test_chapter1_scripts_run_offline_from_the_readme(tmp_path):
    # python book/01.fit_a_line/train.py, then infer.py, with no network (every download
    # goes to a closed port) in an empty folder: the defaults save under ~/.cache
    home, cwd, temp = tmp_path / "home", tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    temp.mkdir()
    offline = {"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    env = {**os.environ, **offline, "HOME": str(home), "JAX_PLATFORMS": "cpu"}
    env.update(PADDLE_LITE_DATA_HOME=str(tmp_path / "no_data"), TMPDIR=str(temp))
    for script, args in (("train.py", ["--num-passes", "2"]), ("infer.py", [])):
        done = subprocess.run(
            [sys.executable, str(BOOK / "01.fit_a_line" / script), *args],
            capture_output=True, cwd=cwd, env=env, timeout=300, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("Predicted price: $") == 102
    saved = home / ".cache" / "paddle_lite" / "book" / "01.fit_a_line"
    assert sorted(p.name for p in saved.iterdir()) == ["fit_a_line.tar", "params_pass_0.tar"]
    assert list(cwd.iterdir()) == [] and list(temp.iterdir()) == []  # nor a temporary folder


@pytest.mark.parametrize("net", ["softmax", "mlp", "lenet"])
def test_chapter2_recognize_digits(net, tmp_path, monkeypatch, capsys):
    random.seed(0)  # the chapter shuffles with the global random, as v2 did
    if (SHARED / "mnist" / "t10k-images-idx3-ubyte.gz").exists():
        monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(SHARED))
        test = paddle.reader.firstn(paddle.dataset.mnist.test(), 512)
        train = paddle.reader.firstn(paddle.dataset.mnist.test(), 1024)
    else:  # no MNIST files: separable synthetic digits of the same shape
        train, test = _images(1024, 512, 784, 10, 0)
    state = _run(
        "02.recognize_digits",
        net=net,
        num_passes=2,
        train_reader=train,
        test_reader=test,
        save_dir=str(tmp_path),
        plot=False,
    )
    out = capsys.readouterr().out
    assert "classification_error_evaluator" in out and "The classification accuracy is" in out
    # The book's aggressive rate makes 16 steps noisy (errors of 0.2-0.8 across seeds);
    # each network must at least have learned well beyond chance (0.9 error).
    best = state["best"]
    assert best[2] < 0.75 and best == min(state["tests"], key=lambda t: t[1])
    assert [t[0] for t in state["tests"]] == [0, 1] and len(state["history"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params_pass_0.tar", "params_pass_1.tar"]


@pytest.mark.parametrize("net", ["vgg", "resnet"])
def test_chapter3_image_classification(net, tmp_path, capsys):
    # One short batch of 16 (and 8 test images): the chapter's whole network and loop, at
    # an eighth of the compute of one full batch of 128 (compiling dominates what is left).
    train, test = _images(16, 8, 3072, 10, 1)
    state = _run(
        "03.image_classification",
        net=net,
        num_passes=1,
        train_reader=train,
        test_reader=test,
        save_dir=str(tmp_path),
        plot=False,
        depth=8,
    )
    result = state["result"]
    assert "classification_error_evaluator" in result.metrics
    assert np.isfinite(result.cost) and len(state["history"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "inference_topology.pkl",
        "params_pass_0.tar",
    ]
    assert "Label of the first test image is" in capsys.readouterr().out


def test_chapter1_infer_with_the_v2_pretrained_model(tmp_path, monkeypatch, capsys):
    real = SHARED.parent / "v2_models" / "fit_a_line.tar"
    if not real.exists():
        pytest.skip(f"the v2 model file {real} is not available on this machine")
    (tmp_path / "uci_housing").mkdir()
    (tmp_path / "uci_housing" / "fit_a_line.tar").write_bytes(real.read_bytes())
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path))
    probs = _run("01.fit_a_line", "infer.py", use_v2_model=True)["probs"]
    params = paddle.parameters.Parameters.from_tar(str(real))
    rows = list(paddle.dataset.uci_housing.test()())
    x = np.stack([r[0] for r in rows])
    want = x @ params.get("___fc_layer_0__.w0") + params.get("___fc_layer_0__.wbias")
    np.testing.assert_allclose(probs, want, rtol=1e-5)
    labels = np.array([r[1][0] for r in rows])
    assert np.mean((probs[:, 0] - labels) ** 2) < 40  # v2's trained model fits the test split
    assert capsys.readouterr().out.count("Predicted price: $") == 102


def _reviews(n, vocab, seed):
    """Synthetic 'reviews': label 0 when most word ids are in the lower half."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(n):
        label = int(rng.integers(0, 2))
        low, high = (0, vocab // 2) if label == 0 else (vocab // 2, vocab)
        words = rng.integers(low, high, int(rng.integers(3, 20))).tolist()
        samples.append((words, label))
    return lambda: iter(samples)


@pytest.mark.parametrize("net", ["conv", "lstm"])
def test_chapter6_understand_sentiment(net, tmp_path, capsys):
    random.seed(0)
    word_dict = {f"w{i}": i for i in range(50)}
    word_dict["<unk>"] = 50
    state = _run(
        "06.understand_sentiment",
        net=net,
        num_passes=2,
        word_dict=word_dict,
        train_reader=_reviews(400, 50, 0),
        test_reader=_reviews(100, 50, 1),
        save_dir=str(tmp_path),
        plot=False,
    )
    out = capsys.readouterr().out
    assert "predicting probability is" in out and (tmp_path / "inference_topology.pkl").exists()
    assert state["result"].metrics["classification_error_evaluator"] < 0.3  # separable
    assert len(state["history"]) == 2 and state["probs"].shape == (2, 2)


def test_chapter4_word2vec(tmp_path):
    # the book's paddle.init(trainer_count=3) needs three CPU devices made before JAX
    # starts: the chapter runs in a process of its own, data-parallel
    script = pathlib.Path(__file__).parent / "scripts" / "chapter4.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), str(SHARED)],
        capture_output=True,
        timeout=600,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    out = done.stdout.decode()
    result = json.loads(out.strip().splitlines()[-1])
    assert result["devices"] == 3 and result["embeddings"] == [result["words"], 32]
    assert np.isfinite(result["cost"]) and result["metrics"] == ["classification_error_evaluator"]
    assert (tmp_path / "model_0.tar").exists() and (tmp_path / "embedding_table").exists()
    assert "Testing metrics" in out


@pytest.mark.slow  # a real-data run: python -m pytest -m slow
def test_chapter5_recommender_system(tmp_path, monkeypatch, capsys):
    if not (SHARED / "movielens" / "ml-1m" / "ratings.dat").exists():
        pytest.skip(f"the MovieLens files are not in {SHARED / 'movielens'}")
    random.seed(0)
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(SHARED))
    train = paddle.reader.firstn(paddle.dataset.movielens.train(), 2560)
    test = paddle.reader.firstn(paddle.dataset.movielens.test(), 512)
    state = _run(
        "05.recommender_system",
        num_passes=2,
        train_reader=train,
        test_reader=test,
        save_dir=str(tmp_path),
        plot=False,
    )
    assert 0.0 < state["result"].cost < 12.0  # scores lie in [-3, 5]; the untrained start is ~10
    assert 0.0 <= state["score"] <= 5.0
    assert "[Predict] User 234 Rating Movie 345 With Score" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params_pass_0.tar", "params_pass_1.tar"]


@pytest.mark.slow  # a real-data run: python -m pytest -m slow
def test_chapter7_label_semantic_roles(tmp_path, monkeypatch, capsys):
    if not (SHARED / "conll05" / "verbDict.txt").exists():
        pytest.skip(f"the CoNLL-2005 files are not in {SHARED / 'conll05'}")
    random.seed(0)
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(SHARED))
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():  # without wordDict.txt conll05 warns it builds its own
        warnings.simplefilter("ignore", UserWarning)
        word_dict, _, label_dict = paddle.dataset.conll05.get_dict()
        embedding = np.random.default_rng(0).normal(0, 0.1, (len(word_dict), 32))
        state = _run(
            "07.label_semantic_roles",
            num_passes=1,
            reader=paddle.reader.firstn(paddle.dataset.conll05.test(), 40),
            embedding=embedding.astype(np.float32),
            hidden_dim=64,
            depth=2,
            save_dir=str(tmp_path / "saved"),
            plot=False,
        )
    labels = state["labels"]
    assert labels and set(labels) <= set(label_dict)
    assert len(labels) == len(state["test_data"][0][0])  # one role per word
    assert (tmp_path / "saved" / "params_pass_0.tar").exists()
    out = capsys.readouterr().out
    assert "Test with Pass 0" in out and "__sum_evaluator_0__" in out
    assert list(tmp_path.iterdir()) == [tmp_path / "saved"]  # the working directory stays empty

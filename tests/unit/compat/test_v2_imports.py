"""install_v2_imports: paddle.v2's module names are paddle_lite's modules, the v1 modules
v2 programs imported give v2's objects (and refuse v1's config API when used), and a real
PaddlePaddle is never hidden silently."""

import importlib
import sys

import pytest

import paddle_lite
from paddle_lite._src.compat import v2_imports
from paddle_lite.errors import InstalledPaddleError, V1ConfigError


def _forget_paddle():
    v2_imports.uninstall()
    for name in [n for n in sys.modules if n == "paddle" or n.startswith("paddle.")]:
        del sys.modules[name]


@pytest.fixture
def v2():
    _forget_paddle()
    paddle_lite.install_v2_imports()
    yield
    _forget_paddle()


@pytest.fixture
def fake_paddle(tmp_path, monkeypatch):
    """A package named ``paddle`` on the path, as a PaddlePaddle installation puts it."""
    _forget_paddle()
    (tmp_path / "paddle").mkdir()
    (tmp_path / "paddle" / "__init__.py").write_text("REAL = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path / "paddle" / "__init__.py"
    _forget_paddle()


def test_v2_module_names_are_paddle_lites_modules(v2):
    import paddle
    import paddle.v2 as v2paddle
    import paddle.v2.dataset.mnist as mnist
    from paddle.v2.layer import fc
    from paddle.v2.reader.creator import np_array

    assert v2paddle is paddle_lite and paddle.v2 is paddle_lite
    assert importlib.import_module("paddle.v2.layer") is paddle_lite.layer
    assert fc is paddle_lite.layer.fc and np_array is paddle_lite.reader.creator.np_array
    assert mnist is paddle_lite.dataset.mnist
    assert paddle.v2.trainer.SGD is paddle_lite.trainer.SGD
    # the aliases keep paddle_lite's own names and specs
    assert paddle_lite.layer.__name__ == "paddle_lite.layer"
    assert paddle_lite.layer.__spec__.name == "paddle_lite.layer"
    assert paddle_lite.__spec__.name == "paddle_lite"
    # `import paddle` gives paddle_lite's names too; paddle.trainer is v1's package
    assert paddle.layer is paddle_lite.layer and paddle.batch is paddle_lite.batch
    assert paddle.trainer.SGD is paddle_lite.trainer.SGD
    assert paddle.trainer.PyDataProvider2.dense_vector is paddle_lite.data_type.dense_vector
    paddle_lite.install_v2_imports()  # again: nothing changes
    assert sum(type(f).__name__ == "V2Finder" for f in sys.meta_path) == 1


def test_other_paddle_modules_say_what_is_provided(v2):
    with pytest.raises(ModuleNotFoundError, match="paddle.fluid.*provides paddle.v2") as info:
        importlib.import_module("paddle.fluid")
    assert info.value.name == "paddle.fluid"
    with pytest.raises(ModuleNotFoundError, match="no module 'paddle_lite.dataset.nope'"):
        importlib.import_module("paddle.v2.dataset.nope")


def test_trainer_config_helpers_names_are_v2s_objects(v2):
    import paddle.trainer_config_helpers as helpers

    P = paddle_lite
    assert helpers.TanhActivation is P.activation.Tanh
    assert helpers.LinearActivation is P.activation.Linear
    assert helpers.BaseActivation is P.activation.BaseActivation
    assert helpers.MaxPooling is P.pooling.Max and helpers.SumPooling is P.pooling.Sum
    assert helpers.ParamAttr is P.attr.ParamAttr and helpers.ExtraAttr is P.attr.ExtraAttr
    assert helpers.ExtraLayerAttribute is P.attr.ExtraLayerAttribute
    assert helpers.classification_error_evaluator is P.evaluator.classification_error
    assert helpers.simple_lstm is P.networks.simple_lstm
    assert helpers.L2Regularization is P.optimizer.L2Regularization
    assert helpers.ModelAverage is P.optimizer.ModelAverage
    # paddle/v2/layer.py's renames
    pairs = {
        "fc_layer": "fc", "img_conv_layer": "img_conv", "maxid_layer": "max_id",
        "cross_entropy": "cross_entropy_cost", "lstmemory": "lstmemory", "last_seq": "last_seq",
        "cos_sim": "cos_sim", "hsigmoid": "hsigmoid", "classification_cost":
        "classification_cost", "full_matrix_projection": "full_matrix_projection",
        "recurrent_group": "recurrent_group", "StaticInput": "StaticInput",
    }  # fmt: skip
    for v1_name, v2_name in pairs.items():
        assert getattr(helpers, v1_name) is getattr(P.layer, v2_name), v1_name
    for name in helpers.__all__:
        getattr(helpers, name)
    assert len(helpers.__all__) > 200


def test_star_import_works_and_the_v1_config_api_raises_on_use(v2):
    namespace = {}
    exec("from paddle.trainer_config_helpers import *", namespace)
    assert namespace["TanhActivation"] is paddle_lite.activation.Tanh
    cases = {
        "settings": "paddle.optimizer.Momentum",
        "outputs": "paddle.parameters.create(cost)",
        "inputs": "feeding=",
        "define_py_data_sources2": "paddle.batch(",
        "data_layer": "paddle.layer.data(name='x', type=paddle.data_type.dense_vector(size))",
        "MomentumOptimizer": "update_equation: paddle.trainer.SGD(",
        "AdamOptimizer": "paddle.optimizer.Adam(",
        "parse_network_config": "Topology(cost).proto()",
        "evaluator_base": "paddle.evaluator.classification_error(",
    }
    for name, instead in cases.items():
        with pytest.raises(V1ConfigError) as info:
            namespace[name](1, size=2)
        message = str(info.value)
        assert f"paddle.trainer_config_helpers.{name} is PaddlePaddle's v1 config API" in message
        assert instead in message, (name, message)
        assert isinstance(info.value, NotImplementedError)
    with pytest.raises(V1ConfigError, match="settings.learning_rate"):
        namespace["settings"].learning_rate  # noqa: B018


def test_py_data_provider2_gives_v2s_data_types(v2):
    from paddle.trainer.PyDataProvider2 import (
        InputType,
        dense_slot,
        dense_vector,
        index_slot,
        integer_value_sequence,
        provider,
    )

    DT = paddle_lite.data_type
    assert dense_vector is DT.dense_vector and dense_slot is DT.dense_vector
    assert index_slot is DT.integer_value and InputType is DT.InputType
    assert integer_value_sequence(10) == DT.integer_value_sequence(10)
    with pytest.raises(V1ConfigError, match=r"def reader\(\)"):

        @provider(input_types=[dense_vector(3)])
        def process(settings, filename):  # pragma: no cover - never defined
            yield [0.0, 0.0, 0.0]


def test_a_real_paddle_is_refused_naming_both(fake_paddle):
    with pytest.raises(InstalledPaddleError) as info:
        paddle_lite.install_v2_imports()
    message = str(info.value)
    assert str(fake_paddle) in message
    assert str(paddle_lite.__file__).rsplit("/", 1)[0] in message
    assert "replace_installed_paddle=True" in message and "--replace-installed-paddle" in message
    assert isinstance(info.value, ImportError)
    assert not any(type(f).__name__ == "V2Finder" for f in sys.meta_path)
    assert importlib.import_module("paddle").REAL  # still the real one


def test_replacing_a_real_paddle_on_request(fake_paddle):
    paddle_lite.install_v2_imports(replace_installed_paddle=True)
    import paddle.v2

    assert paddle.v2 is paddle_lite and not hasattr(sys.modules["paddle"], "REAL")


def test_a_real_paddle_already_imported_is_refused_even_on_request(fake_paddle):
    importlib.import_module("paddle")
    with pytest.raises(InstalledPaddleError, match="already imported.*Restart"):
        paddle_lite.install_v2_imports(replace_installed_paddle=True)

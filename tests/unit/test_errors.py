"""paddle.errors exports every error class the library defines, under one base class, and
each prints under the module users import it from."""

import importlib
import pickle
import pkgutil
import traceback

import paddle_lite as paddle
import paddle_lite._src as src
from paddle_lite.errors import PaddleLiteError


def _library_error_classes():
    found = set()
    for info in pkgutil.walk_packages(src.__path__, prefix="paddle_lite._src."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, PaddleLiteError):
                found.add(value)
    return found


def test_every_error_class_is_public_under_one_base():
    defined = _library_error_classes()
    exported = {getattr(paddle.errors, n) for n in paddle.errors.__all__}
    assert len(defined) > 15
    missing = sorted(c.__name__ for c in defined - exported)
    assert not missing, f"error classes missing from paddle.errors: {missing}"
    for cls in {c for c in exported if not issubclass(c, Warning)}:
        assert issubclass(cls, PaddleLiteError), cls


def test_every_warning_category_is_public():
    src_errors = importlib.import_module("paddle_lite._src.errors")
    categories = {
        name
        for name, value in vars(src_errors).items()
        if isinstance(value, type) and issubclass(value, Warning)
    }
    assert categories <= set(paddle.errors.__all__), categories - set(paddle.errors.__all__)


def test_errors_keep_the_builtin_a_v2_program_catches():
    layer = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    try:
        paddle.layer.fc(input=layer, size=-1)
    except paddle.errors.PaddleLiteError as err:
        assert isinstance(err, ValueError)
        assert type(err).__module__ == "paddle_lite.errors"
    else:
        raise AssertionError("fc(size=-1) did not raise")


def test_every_exported_class_prints_under_paddle_lite_errors():
    assert len(paddle.errors.__all__) > 25
    for name in paddle.errors.__all__:
        cls = getattr(paddle.errors, name)
        assert cls.__module__ == "paddle_lite.errors", name
        assert cls.__qualname__ == name
        assert repr(cls) == f"<class 'paddle_lite.errors.{name}'>"
    err = paddle.errors.ReaderProcessError("worker 1 died")
    assert traceback.format_exception_only(err)[0].startswith(
        "paddle_lite.errors.ReaderProcessError: worker 1 died"
    )


def test_errors_pickle_by_their_public_name():
    err = paddle.errors.CheckpointError("the folder is damaged")
    data = pickle.dumps(err)
    assert b"paddle_lite.errors" in data and b"_src" not in data
    back = pickle.loads(data)
    assert type(back) is paddle.errors.CheckpointError and str(back) == str(err)

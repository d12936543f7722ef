"""paddle.errors exports every error class the library defines, under one base class."""

import importlib
import pkgutil

import paddle_lite as paddle
import paddle_lite._src as src
from paddle_lite.errors import PaddleLiteError


def _library_error_classes():
    found = set()
    for info in pkgutil.walk_packages(src.__path__, prefix="paddle_lite._src."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, PaddleLiteError)
                and value.__module__ == module.__name__
            ):
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
        assert type(err).__module__.startswith("paddle_lite")
    else:
        raise AssertionError("fc(size=-1) did not raise")

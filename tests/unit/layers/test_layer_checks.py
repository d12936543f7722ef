"""The one input check of the layer kinds: ``base.expect`` and its modes."""

import pytest

from paddle_lite._src.layers import base
from paddle_lite._src.specs import Spec
from paddle_lite.errors import LayerConfigError

DENSE, IDS = Spec(4), Spec(10, dtype="int32")
SPARSE = Spec(7, dtype="sparse_binary")


@pytest.mark.parametrize(
    ("mode", "accepted", "refused"),
    [
        ("dense", [DENSE], [IDS, SPARSE]),
        ("values", [DENSE, SPARSE], [IDS]),
        ("ids", [IDS], [DENSE, SPARSE]),
        ("dense_or_ids", [DENSE, IDS], [SPARSE]),
    ],
)
def test_each_mode_accepts_and_refuses(mode, accepted, refused):
    for spec in accepted:
        base.expect(spec, "input", mode)
    for spec in refused:
        with pytest.raises(LayerConfigError, match=r"^input holds"):
            base.expect(spec, "input", mode)


def test_ids_refused_name_the_size_and_point_at_embedding():
    with pytest.raises(LayerConfigError) as info:
        base.expect(IDS, "a")
    assert str(info.value) == (
        "a holds integer ids (paddle.data_type.integer_value); expected dense float values "
        "(received an input of size 10). Feed ids through paddle.layer.embedding first."
    )


def test_a_list_names_each_input_by_position():
    with pytest.raises(LayerConfigError, match=r"^input 1 holds a sparse binary vector"):
        base.expect([DENSE, SPARSE])


def test_size_is_checked_with_the_reason():
    with pytest.raises(LayerConfigError, match=r"^label has size 4; expected 3 \(= input.size\)"):
        base.expect(DENSE, "label", size=3, why=" (= input.size)")

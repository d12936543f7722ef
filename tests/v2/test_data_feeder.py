"""v2's python/paddle/v2/tests/test_data_feeder.py (commit 1ff47b28): skipped.

Every check of v2's test reads the feeder's output through the swig ``py_paddle.swig_paddle``
``Arguments`` object (``getSlotValue(i).copyToNumpyMat()``, ``getSparseRowCols``,
``getSlotSequenceStartPositions``, ``getSlotFrameHeight`` ...), part of v2's C++ runtime.
paddle_lite's DataFeeder returns ``{data layer name: array}`` instead; the same conversions
(dense, sparse binary, sparse float, integer, integer sequence, several and duplicated
features, tuples, 3-D dense arrays) are checked in tests/unit/test_feeder.py.
"""

import unittest

SWIG = "needs v2's C++ internals: the swig api.Arguments the feeder returned in v2"


@unittest.skip(SWIG)
class DataFeederTest(unittest.TestCase):
    def test_dense(self):
        pass

    def test_sparse_binary(self):
        pass

    def test_sparse(self):
        pass

    def test_integer(self):
        pass

    def test_integer_sequence(self):
        pass

    def test_multiple_features(self):
        pass

    def test_multiple_features_tuple(self):
        pass

    def test_dense_set_shape(self):
        pass


if __name__ == "__main__":
    unittest.main()

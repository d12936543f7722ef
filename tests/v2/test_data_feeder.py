"""Port of v2's python/paddle/v2/tests/test_data_feeder.py (commit 1ff47b28).

v2's feeder returned the swig ``api.Arguments`` of v2's C++ runtime, and every check reads
it (``getSlotValue(i).copyToNumpyMat()``, ``getSparseRowCols``, ``getSlotIds``,
``getSlotSequenceStartPositions`` ...). paddle_lite's feeder returns ``{data layer name:
array}`` (dense arrays, ``Sparse`` padded ids/values, ``Seq`` padded ids/lengths); the port
reads it through ``_Arguments``, a small reader that answers those calls from that dict, so
v2's checks run unchanged. Translated besides: Python 2 -> 3 (``xrange``, ``zip`` lists) and
``isinstance(output, api.Matrix)`` -> ``isinstance(output, Sparse)``.
``test_dense_set_shape`` stays skipped: it reads the frame height and width that v2's
Arguments kept for a 3-D ``dense_array`` sample, and paddle_lite's feeder flattens such a
sample to the declared size (``paddle.layer.data(height=, width=)`` carries image shapes).
"""

import unittest

import numpy as np

from paddle_lite import data_type
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.data_feeder import DataFeeder as LiteDataFeeder


class _Values:
    """A slot's dense values or ids: ``copyToNumpyMat`` / ``copyToNumpyArray``."""

    def __init__(self, value):
        self.value = value

    def copyToNumpyMat(self):
        return np.asarray(self.value)

    copyToNumpyArray = copyToNumpyMat


class _SparseMatrix(Sparse):
    """A ``Sparse`` slot (padded ids and values) answering v2's sparse Matrix row calls."""

    def _entries(self, row):
        ids, values = np.asarray(self.ids[row]), np.asarray(self.values[row])
        return [(i, v) for i, v in zip(ids, values, strict=True) if v != 0]  # pads: value 0

    def getSparseRowCols(self, row):
        return [int(i) for i, _ in self._entries(row)]

    def getSparseRowColsVal(self, row):
        return [(int(i), float(v)) for i, v in self._entries(row)]


class _Arguments:
    """The ``api.Arguments`` calls v2's test makes, answered from paddle_lite's feeds."""

    def __init__(self, feeds, names):
        self.feeds, self.names = feeds, names

    def getSlotValue(self, i):
        value = self.feeds[self.names[i]]
        return _SparseMatrix(*value) if isinstance(value, Sparse) else _Values(value)

    def getSlotIds(self, i):
        value = self.feeds[self.names[i]]
        if isinstance(value, Seq):  # v2 packed the steps of all sequences one after another
            data, lengths = np.asarray(value.data), np.asarray(value.lengths)
            return _Values(np.concatenate([d[:n] for d, n in zip(data, lengths, strict=True)]))
        return _Values(value)

    def getSlotSequenceStartPositions(self, i):
        lengths = np.asarray(self.feeds[self.names[i]].lengths)
        return _Values(np.concatenate([[0], np.cumsum(lengths)]))


class DataFeeder(LiteDataFeeder):
    """paddle_lite's feeder, its output read through ``_Arguments``."""

    def __call__(self, batch):
        return _Arguments(super().__call__(batch), [name for name, _ in self.data_types])


class api:
    Matrix = Sparse


class DataFeederTest(unittest.TestCase):
    def dense_reader(self, size):
        data = np.random.random(size)
        return data

    def sparse_binary_reader(self, high, size_limit, non_empty=False):
        num = np.random.randint(size_limit)  # num could be 0
        while non_empty and num == 0:
            num = np.random.randint(size_limit)
        return np.random.randint(high, size=num).tolist()

    def test_dense(self):
        def compare(input):
            feeder = DataFeeder([("image", data_type.dense_vector(784))], {"image": 0})
            arg = feeder(input)
            output = arg.getSlotValue(0).copyToNumpyMat()
            input = np.array(input, dtype="float32")
            self.assertAlmostEqual(input.all(), output.all())

        # test numpy array
        batch_size = 32
        dim = 784
        data = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(self.dense_reader(dim))
            data.append(each_sample)
        compare(data)

        # each feature is a list
        data = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(self.dense_reader(dim).tolist())
            data.append(each_sample)
        compare(data)

        # test tuple
        data = []
        for _i in range(batch_size):
            each_sample = (self.dense_reader(dim).tolist(),)
            data.append(each_sample)
        compare(data)

    def test_sparse_binary(self):
        dim = 10000
        batch_size = 32
        data = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(self.sparse_binary_reader(dim, 50))
            data.append(each_sample)
        feeder = DataFeeder([("input", data_type.sparse_binary_vector(dim))], {"input": 0})
        arg = feeder(data)
        output = arg.getSlotValue(0)
        assert isinstance(output, api.Matrix)
        for i in range(batch_size):
            self.assertEqual(output.getSparseRowCols(i), data[i][0])

    def test_sparse(self):
        dim = 10000
        batch_size = 32
        v = []
        w = []
        data = []
        for _dat in range(batch_size):
            each_sample = []
            a = self.sparse_binary_reader(dim, 40, non_empty=True)
            b = self.dense_reader(len(a)).tolist()
            v.append(a)
            w.append(np.array(b, dtype="float32"))
            each_sample.append(list(zip(a, b, strict=True)))
            data.append(each_sample)

        feeder = DataFeeder([("input", data_type.sparse_float_vector(dim))], {"input": 0})
        arg = feeder(data)
        output = arg.getSlotValue(0)
        assert isinstance(output, api.Matrix)
        for i in range(batch_size):
            self.assertEqual(output.getSparseRowCols(i), v[i])
            cols_value = output.getSparseRowColsVal(i)
            value = [val[1] for val in cols_value]
            value = np.array(value, dtype="float32")
            self.assertAlmostEqual(value.all(), w[i].all())

    def test_integer(self):
        value_range = 100
        batch_size = 32
        index = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(np.random.randint(value_range))
            index.append(each_sample)
        feeder = DataFeeder([("input", data_type.integer_value(value_range))], {"input": 0})
        arg = feeder(index)
        output = arg.getSlotIds(0).copyToNumpyArray()
        index = np.array(index, dtype="int")
        self.assertEqual(output.all(), index.flatten().all())

    def test_integer_sequence(self):
        value_range = 10000
        batch_size = 32
        start = [0]
        data = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(self.sparse_binary_reader(value_range, 30, non_empty=True))
            data.append(each_sample)
            start.append(len(each_sample[0]) + start[-1])
        feeder = DataFeeder(
            [("input", data_type.integer_value_sequence(value_range))], {"input": 0}
        )
        arg = feeder(data)
        output_data = arg.getSlotIds(0).copyToNumpyArray()
        output_start = arg.getSlotSequenceStartPositions(0).copyToNumpyArray()

        index = []
        for dat in data:
            index.extend(x for x in dat[0])  # only one feature, so dat[0]
        index = np.array(index, dtype="int")
        start = np.array(start, dtype="int")
        self.assertEqual(output_data.all(), index.all())
        self.assertEqual(output_start.all(), start.all())

    def test_multiple_features(self):
        batch_size = 2
        data = []
        for _i in range(batch_size):
            each_sample = []
            each_sample.append(np.random.randint(10))
            each_sample.append(self.sparse_binary_reader(20000, 40, non_empty=True))
            each_sample.append(self.dense_reader(100))
            data.append(each_sample)

        # test multiple features
        data_types = [
            ("fea0", data_type.dense_vector(100)),
            ("fea1", data_type.sparse_binary_vector(20000)),
            ("fea2", data_type.integer_value(10)),
        ]
        feeder = DataFeeder(data_types, {"fea0": 2, "fea1": 1, "fea2": 0})
        arg = feeder(data)
        output_dense = arg.getSlotValue(0).copyToNumpyMat()
        output_sparse = arg.getSlotValue(1)
        output_index = arg.getSlotIds(2).copyToNumpyArray()
        for i in range(batch_size):
            self.assertEqual(output_dense[i].all(), data[i][2].all())
            self.assertEqual(output_sparse.getSparseRowCols(i), data[i][1])
            self.assertEqual(output_index[i], data[i][0])

        # reader returns 3 features, but only use 2 features
        data_types = [("fea0", data_type.dense_vector(100)), ("fea2", data_type.integer_value(10))]
        feeder = DataFeeder(data_types, {"fea0": 2, "fea2": 0})
        arg = feeder(data)
        output_dense = arg.getSlotValue(0).copyToNumpyMat()
        output_index = arg.getSlotIds(1).copyToNumpyArray()
        for i in range(batch_size):
            self.assertEqual(output_dense[i].all(), data[i][2].all())
            self.assertEqual(output_index[i], data[i][0])

        # reader returns 3 featreus, one is duplicate data
        data_types = [
            ("fea0", data_type.dense_vector(100)),
            ("fea1", data_type.sparse_binary_vector(20000)),
            ("fea2", data_type.integer_value(10)),
            ("fea3", data_type.dense_vector(100)),
        ]
        feeder = DataFeeder(data_types, {"fea0": 2, "fea1": 1, "fea2": 0, "fea3": 2})
        arg = feeder(data)
        fea0 = arg.getSlotValue(0).copyToNumpyMat()
        fea1 = arg.getSlotValue(1)
        fea2 = arg.getSlotIds(2).copyToNumpyArray()
        fea3 = arg.getSlotValue(3).copyToNumpyMat()
        for i in range(batch_size):
            self.assertEqual(fea0[i].all(), data[i][2].all())
            self.assertEqual(fea1.getSparseRowCols(i), data[i][1])
            self.assertEqual(fea2[i], data[i][0])
            self.assertEqual(fea3[i].all(), data[i][2].all())

    def test_multiple_features_tuple(self):
        batch_size = 2
        data = []
        for _i in range(batch_size):
            a = np.random.randint(10)
            b = self.sparse_binary_reader(20000, 40, non_empty=True)
            c = self.dense_reader(100)
            each_sample = (a, b, c)
            data.append(each_sample)

        # test multiple features
        data_types = [
            ("fea0", data_type.dense_vector(100)),
            ("fea1", data_type.sparse_binary_vector(20000)),
            ("fea2", data_type.integer_value(10)),
        ]
        feeder = DataFeeder(data_types, {"fea0": 2, "fea1": 1, "fea2": 0})
        arg = feeder(data)
        out_dense = arg.getSlotValue(0).copyToNumpyMat()
        out_sparse = arg.getSlotValue(1)
        out_index = arg.getSlotIds(2).copyToNumpyArray()
        for i in range(batch_size):
            self.assertEqual(out_dense[i].all(), data[i][2].all())
            self.assertEqual(out_sparse.getSparseRowCols(i), data[i][1])
            self.assertEqual(out_index[i], data[i][0])

    @unittest.skip(
        "needs v2's C++ internals: the frame height and width of v2's swig api.Arguments"
    )
    def test_dense_set_shape(self):
        pass


if __name__ == "__main__":
    unittest.main()

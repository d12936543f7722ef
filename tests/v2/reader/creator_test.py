"""Port of v2's python/paddle/v2/reader/tests/creator_test.py (commit b853ac8c).

Translated: Python 2 -> 3 (``assertItemsEqual`` -> ``assertCountEqual``), the package name,
and the record file: v2 read ``test_reader_recordio.dat``, a binary file of the ``recordio``
Go library whose records are ``cPickle.dumps`` of ``(1, 2, 3)`` and ``(4, 5, 6)``; the
source index keeps no binary files, so the test writes that file in the same layout (one
chunk, the two protocol-0 pickles, see ``tests/v2_recordio_files.py``; uncompressed, where
v2's writer used snappy) into a temporary folder and reads it back the same two ways.
``test_data_creator.txt`` is v2's file, copied beside this test.
"""

import os
import shutil
import tempfile
import unittest

import numpy as np
import v2_recordio_files as go

import paddle_lite.reader.creator


class _Paddle:  # so the test reads ``paddle.v2.reader.creator...`` as v2's did
    class v2:
        reader = paddle_lite.reader


paddle = _Paddle


class TestNumpyArray(unittest.TestCase):
    def test_numpy_array(self):
        l = [[1, 2, 3], [4, 5, 6]]
        x = np.array(l, np.int32)
        reader = paddle.v2.reader.creator.np_array(x)
        for idx, e in enumerate(reader()):
            self.assertCountEqual(e, l[idx])


class TestTextFile(unittest.TestCase):
    def test_text_file(self):
        path = os.path.join(os.path.dirname(__file__), "test_data_creator.txt")
        reader = paddle.v2.reader.creator.text_file(path)
        for idx, e in enumerate(reader()):
            self.assertEqual(e, str(idx * 2) + " " + str(idx * 2 + 1))


class TestRecordIO(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.path = os.path.join(self.folder, "test_reader_recordio.dat")
        records = [go.py2_tuple_of_ints([1, 2, 3]), go.py2_tuple_of_ints([4, 5, 6])]
        with open(self.path, "wb") as f:
            f.write(go.chunk(records))

    def tearDown(self):
        shutil.rmtree(self.folder)

    def do_test(self, path):
        reader = paddle.v2.reader.creator.recordio(path)
        idx = 0
        for e in reader():
            if idx == 0:
                self.assertEqual(e, (1, 2, 3))
            elif idx == 1:
                self.assertEqual(e, (4, 5, 6))
            idx += 1
        self.assertEqual(idx, 2)

    def test_recordIO(self):
        self.do_test(self.path)
        self.do_test([self.path])


if __name__ == "__main__":
    unittest.main()

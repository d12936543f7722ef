"""Port of v2's python/paddle/v2/plot/tests/test_ploter.py (commit 7f83f83b): package name only."""

import unittest

from paddle_lite.plot import Ploter


class TestCommon(unittest.TestCase):
    def test_append(self):
        title1 = "title1"
        title2 = "title2"
        plot_test = Ploter(title1, title2)
        plot_test.append(title1, 1, 2)
        plot_test.append(title1, 2, 5)
        plot_test.append(title2, 3, 4)
        self.assertEqual(plot_test.__plot_data__[title1].step, [1, 2])
        self.assertEqual(plot_test.__plot_data__[title1].value, [2, 5])
        self.assertEqual(plot_test.__plot_data__[title2].step, [3])
        self.assertEqual(plot_test.__plot_data__[title2].value, [4])
        plot_test.reset()
        self.assertEqual(plot_test.__plot_data__[title1].step, [])
        self.assertEqual(plot_test.__plot_data__[title1].value, [])
        self.assertEqual(plot_test.__plot_data__[title2].step, [])
        self.assertEqual(plot_test.__plot_data__[title2].value, [])


if __name__ == "__main__":
    unittest.main()

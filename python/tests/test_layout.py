"""Which layouts a call takes as they are, and the reasons for the rest."""
import unittest

from fakes import FakeCAI, cuspec

_layout = cuspec._layout
view = cuspec._arrays.view


def v(shape, strides=None, typestr="<f4"):
    size = int(typestr[2:])
    return view(FakeCAI(shape, typestr, None if strides is None else
                        tuple(s * size for s in strides)), "x", None)


class Reductions(unittest.TestCase):
    def test_contiguous(self):
        self.assertEqual(_layout.run_length(v((6, 7)), "x", True), 42)
        self.assertEqual(_layout.run_length(v((6, 7), (7, 1)), "x", True), 42)

    def test_extent_one_axes_have_any_stride(self):
        self.assertEqual(_layout.run_length(v((1, 7, 1), (99, 1, 5)), "x", True), 7)

    def test_empty(self):
        self.assertEqual(_layout.run_length(v((0, 7), (1, 0)), "x", True), 0)

    def test_transposed_view_is_dense(self):
        t = v((7, 6), (1, 7))
        self.assertEqual(_layout.run_length(t, "x", False), 42)
        with self.assertRaisesRegex(cuspec.InvalidArgument, r"x is not C-contiguous \(shape "
                                                            r"\(7, 6\), strides \(1, 7\)"):
            _layout.run_length(t, "x", True)

    def test_gaps_broadcasts_and_reversals(self):
        for shape, strides in [((8,), (2,)), ((4, 4), (8, 1)), ((4, 4), (0, 1)), ((4,), (-1,))]:
            with self.assertRaisesRegex(cuspec.InvalidArgument, "x is not dense.*contiguous copy"):
                _layout.run_length(v(shape, strides), "x", False)

    def test_same_layout(self):
        self.assertTrue(_layout.same_layout(v((3, 4)), v((3, 4), (4, 1))))
        self.assertFalse(_layout.same_layout(v((3, 4)), v((3, 4), (1, 3))))


class Matrices(unittest.TestCase):
    def test_contiguous(self):
        self.assertEqual(_layout.matrix(v((3, 4)), "x"), (1, 3, 4, 4, 0))
        self.assertEqual(_layout.matrix(v((2, 3, 4)), "x"), (2, 3, 4, 4, 12))

    def test_leading_dimension(self):
        self.assertEqual(_layout.matrix(v((3, 4), (10, 1)), "x"), (1, 3, 4, 10, 0))
        self.assertEqual(_layout.matrix(v((2, 3, 4), (40, 10, 1)), "x"), (2, 3, 4, 10, 40))

    def test_one_row_or_column(self):
        self.assertEqual(_layout.matrix(v((1, 4), (2, 1)), "x"), (1, 1, 4, 4, 0))
        self.assertEqual(_layout.matrix(v((4, 1), (3, 7)), "x"), (1, 4, 1, 3, 0))

    def test_transposed_view(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, r"x is a transposed view \(strides "
                                                            r"\(1, 3\)"):
            _layout.matrix(v((3, 4), (1, 3)), "x")

    def test_column_stride(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, "x is not row-major"):
            _layout.matrix(v((3, 4), (8, 2)), "x")

    def test_overlapping_rows(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, r"rows overlap \(row stride 2 < 4"):
            _layout.matrix(v((3, 4), (2, 1)), "x")

    def test_dimensions(self):
        for shape in [(4,), (2, 2, 2, 2)]:
            with self.assertRaisesRegex(cuspec.InvalidArgument, "%d dimensions" % len(shape)):
                _layout.matrix(v(shape), "x")


if __name__ == "__main__":
    unittest.main()

"""The script helpers: the last launch, and tuning's arguments, progress and
stop, on a detached context whose cuspec_tune is a stand-in."""
import ctypes
import threading
import unittest

from fakes import cuspec, detached, functions

_structs = cuspec._structs


class LastLaunch(unittest.TestCase):
    def test_none_yet(self):
        # The record is per thread: a new one has run nothing, whatever the
        # tests before this one ran on the main thread.
        raised = []

        def look():
            try:
                cuspec.last_launch()
            except cuspec.NotFoundError as e:
                raised.append(str(e))

        t = threading.Thread(target=look)
        t.start()
        t.join()
        self.assertEqual(len(raised), 1)
        self.assertIn("no operation has run on this thread", raised[0])


class FakeTune:
    """cuspec_tune: keeps the spec and options, reports `steps` progress
    calls (stopping when asked), fills the result."""

    def __init__(self, steps=0):
        self.steps = steps

    def __call__(self, ctx, spec, options, result):
        self.spec, self.options = spec._obj, options._obj
        o = self.options
        self.seen = (o.budget_s, o.max_candidates, o.top, o.reps, o.force, o.jobs,
                     o.compile_timeout_s)
        for done in range(1, self.steps + 1):
            if o.stop.contents.value:
                break
            p = _structs.TuneProgress(done, self.steps, 100.0 * done, 0.5 * done, b"candidate")
            o.progress(ctypes.pointer(p), None)
        self.reported = done if self.steps else 0
        r = result._obj
        r.kernel, r.params, r.gbs, r.candidates, r.stopped = b"k<1>", b"block=256", 42.0, 7, 1
        return 0


class Tune(unittest.TestCase):
    def tune(self, fake, *args, **kwargs):
        return detached(functions(cuspec_tune=fake)).tune(*args, **kwargs)

    def test_reduce_spec_and_options(self):
        fake = FakeTune()
        r = self.tune(fake, "max", "i32", n=1 << 20, budget_s=2.5, reps=9, force=True)
        s = fake.spec
        self.assertEqual((s.family, s.op, s.dtype, s.n), (b"reduce", cuspec._dtypes.OPS["max"],
                                                          cuspec.dtype("i32").code, 1 << 20))
        self.assertEqual(fake.seen, (2.5, 0, 0, 9, 1, 0, 0.0))
        self.assertEqual((r["kernel"], r["params"], r["gbs"], r["candidates"], r["stopped"]),
                         ("k<1>", "block=256", 42.0, 7, True))

    def test_dot_and_transpose(self):
        fake = FakeTune()
        self.tune(fake, "dot", "f64", n=1000)
        self.assertEqual((fake.spec.family, fake.spec.op), (b"reduce", -1))
        self.tune(fake, "transpose", "bf16", shape=(300, 500), ld_in=512)
        s = fake.spec
        self.assertEqual((s.family, s.rows, s.cols, s.ld_in, s.ld_out, s.dtype),
                         (b"transpose", 300, 500, 512, 0, cuspec.dtype("bf16").code))

    def test_errors(self):
        fake = FakeTune()
        with self.assertRaisesRegex(cuspec.InvalidArgument, "unknown op 'argmin'"):
            self.tune(fake, "argmin", "f32", n=10)
        with self.assertRaisesRegex(cuspec.InvalidArgument, "shape=\\(rows, cols\\)"):
            self.tune(fake, "transpose", "f32")
        with self.assertRaisesRegex(TypeError, "unknown option 'budget'"):
            self.tune(fake, "sum", "f32", n=10, budget=1)
        with self.assertRaises(ValueError):
            self.tune(fake, "sum", "f128", n=10)

    def test_progress(self):
        seen = []
        self.tune(FakeTune(steps=3), "sum", "f32", n=10, progress=lambda *a: seen.append(a))
        self.assertEqual(seen, [(1, 3, 100.0, 0.5, "candidate"), (2, 3, 200.0, 1.0, "candidate"),
                                (3, 3, 300.0, 1.5, "candidate")])

    def test_an_exception_in_progress_stops_and_is_raised(self):
        fake = FakeTune(steps=5)

        def progress(done, *rest):
            if done == 2:
                raise KeyboardInterrupt
        with self.assertRaises(KeyboardInterrupt):
            self.tune(fake, "sum", "f32", n=10, progress=progress)
        self.assertEqual(fake.reported, 3)  # the stop flag ended it after the second


if __name__ == "__main__":
    unittest.main()

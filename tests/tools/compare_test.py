#!/usr/bin/env python3
"""Tests of benchmarks/compare.py (scripts/bench-compare's table) on made-up rounds.

usage: compare_test.py PATH/TO/compare.py
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

COMPARE = None


def round_file(d, name, times, aggregate=None):
    benchmarks = [{"name": n, "run_type": "iteration", "real_time": t} for n, t in times.items()]
    if aggregate:
        benchmarks.append({"name": aggregate + "_median", "run_type": "aggregate", "real_time": 1.0})
    p = Path(d) / name
    p.write_text(json.dumps({"benchmarks": benchmarks}))
    return str(p)


def run(*args):
    return subprocess.run([sys.executable, COMPARE, *args], capture_output=True, text=True)


class CompareTest(unittest.TestCase):
    def test_medians_ratio_and_round_range(self):
        with tempfile.TemporaryDirectory() as d:
            b = [round_file(d, "b1", {"X": 100.0, "Y": 10.0}, aggregate="X"),
                 round_file(d, "b2", {"X": 110.0, "Y": 10.0}),
                 round_file(d, "b3", {"X": 90.0, "Y": 10.0})]
            t = [round_file(d, "t1", {"X": 50.0, "Y": 20.0}),
                 round_file(d, "t2", {"X": 66.0, "Y": 20.0}),
                 round_file(d, "t3", {"X": 54.0, "Y": 20.0})]
            out = Path(d) / "out.json"
            r = run(str(out), *b, "--", *t)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = {row["name"]: row for row in json.loads(out.read_text())["benchmarks"]}
            self.assertEqual(set(rows), {"X", "Y"})  # the aggregate row is not a benchmark
            self.assertAlmostEqual(rows["X"]["base_ns"], 100.0)
            self.assertAlmostEqual(rows["X"]["this_ns"], 54.0)
            self.assertAlmostEqual(rows["X"]["ratio"], 0.54)
            self.assertAlmostEqual(rows["X"]["ratio_min"], 0.5)  # round 1: 50 / 100
            self.assertAlmostEqual(rows["X"]["ratio_max"], 0.6)  # rounds 2 and 3: 66 / 110, 54 / 90
            self.assertAlmostEqual(rows["Y"]["ratio"], 2.0)
            self.assertIn("0.540x", r.stdout)
            self.assertIn("2.000x", r.stdout)

    def test_a_benchmark_missing_from_a_round_is_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            b = [round_file(d, "b1", {"X": 1.0, "Y": 1.0}), round_file(d, "b2", {"X": 1.0, "Y": 1.0})]
            t = [round_file(d, "t1", {"X": 1.0, "Y": 1.0}), round_file(d, "t2", {"X": 1.0})]
            out = Path(d) / "out.json"
            r = run(str(out), *b, "--", *t)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([row["name"] for row in json.loads(out.read_text())["benchmarks"]], ["X"])
            self.assertIn("left out, not measured in every round of both builds: Y", r.stderr)

    def test_times_in_other_units_are_compared_in_ns(self):
        with tempfile.TemporaryDirectory() as d:
            b = Path(d) / "b1"
            b.write_text(json.dumps({"benchmarks": [
                {"name": "X", "run_type": "iteration", "real_time": 2.0, "time_unit": "us"}]}))
            t = round_file(d, "t1", {"X": 1000.0})  # ns
            out = Path(d) / "out.json"
            r = run(str(out), str(b), "--", t)
            self.assertEqual(r.returncode, 0, r.stderr)
            row = json.loads(out.read_text())["benchmarks"][0]
            self.assertAlmostEqual(row["base_ns"], 2000.0)
            self.assertAlmostEqual(row["ratio"], 0.5)

    def test_an_unknown_time_unit_is_named(self):
        # Regression: it was reported as a file holding no benchmark results.
        with tempfile.TemporaryDirectory() as d:
            b = Path(d) / "b1"
            b.write_text(json.dumps({"benchmarks": [
                {"name": "X", "run_type": "iteration", "real_time": 2.0, "time_unit": "ps"}]}))
            t = round_file(d, "t1", {"X": 1.0})
            r = run(str(Path(d) / "out.json"), str(b), "--", t)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("benchmark X reports time_unit 'ps', not one of ns, us, ms, s", r.stderr)
            self.assertNotIn("holds no benchmark results", r.stderr)

    def test_a_run_stopped_by_an_error_is_left_out(self):
        with tempfile.TemporaryDirectory() as d:
            b = [round_file(d, "b1", {"X": 1.0, "E": 1.0})]
            p = Path(d) / "t1"
            p.write_text(json.dumps({"benchmarks": [
                {"name": "X", "run_type": "iteration", "real_time": 2.0},
                {"name": "E", "run_type": "iteration", "real_time": 0, "error_occurred": True}]}))
            out = Path(d) / "out.json"
            r = run(str(out), *b, "--", str(p))
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = json.loads(out.read_text())["benchmarks"]
            self.assertEqual([(row["name"], row["ratio"]) for row in rows], [("X", 2.0)])

    def test_unequal_rounds_empty_output_and_no_common_benchmark_fail(self):
        with tempfile.TemporaryDirectory() as d:
            out = str(Path(d) / "out.json")
            one = round_file(d, "a", {"X": 1.0})
            other = round_file(d, "b", {"Z": 1.0})
            r = run(out, one, one, "--", one)
            self.assertEqual(r.returncode, 2)
            self.assertIn("same number of rounds", r.stderr)
            empty = Path(d) / "empty.json"
            empty.write_text("")
            r = run(out, str(empty), "--", one)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("holds no benchmark results", r.stderr)
            r = run(out, one, "--", other)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no benchmark ran in every round", r.stderr)
            r = run(out, str(Path(d) / "absent.json"), "--", one)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("cannot read", r.stderr)
            self.assertEqual(run(out).returncode, 2)  # usage


if __name__ == "__main__":
    COMPARE = sys.argv.pop(1)
    unittest.main()

"""Run every benchmark in bench/ (``make bench``), save and print the results.

Any ``bench/*_bench.py`` present is run, in name order, with ``--quick``
passed through when given here; a missing script is simply not run, and one
that fails does not stop the others. Each script's stdout (its tables) is
saved to ``bench/results/<name>.log`` and printed; stderr (progress) streams
through. Exit status: 0 when every script exited 0, else 1.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="pass --quick to every benchmark")
    ap.add_argument("only", nargs="*", help="names to run (e.g. reader crawl); default: all")
    args = ap.parse_args()

    scripts = sorted(c.BENCH_DIR.glob("*_bench.py"))
    if args.only:
        scripts = [s for s in scripts if s.stem.removesuffix("_bench") in args.only]
    if not scripts:
        print("no benchmark scripts found in bench/", file=sys.stderr)
        return 1
    c.RESULTS.mkdir(parents=True, exist_ok=True)
    summary = []
    failed = False
    for script in scripts:
        cmd = [sys.executable, str(script)] + (["--quick"] if args.quick else [])
        c.log(f"== {script.name} {'--quick' if args.quick else ''}")
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
        wall = time.perf_counter() - start
        suffix = "_quick" if args.quick else ""
        (c.RESULTS / f"{script.stem}{suffix}.log").write_text(proc.stdout)
        print(proc.stdout, flush=True)
        summary.append([script.name, proc.returncode, wall])
        failed |= proc.returncode != 0
    print(c.table(["benchmark", "exit", "seconds"], summary, title="Benchmarks run"))
    print(f"results in {c.RESULTS}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Writer benchmark: sitemapkit against the `sitemap` npm package, in one run.

Both write N entries (loc + lastmod, 31 distinct dates) as a split set with an
index, plain and gzip, each in its own subprocess; wall time (process start to
exit, imports included) and peak RSS come from ``os.wait4``.  sitemapkit runs
twice: fed ``(url, lastmod)`` pairs, and fed ``UrlEntry`` objects.  The
entries are generated inside each child (a Python generator / a Node generator
behind ``Readable.from``), so both sides pay for making their objects.  Node
uses ``SitemapAndIndexStream`` with ``limit: 50000`` (its default is 45,000) and
``createGzip`` for gzip.

sitemapkit runs with ``fsync=False`` here because the npm package does not
fsync either (the library default is ``fsync=True``).

    python bench/writer_bench.py            # 1,000,000 and 10,000,000
    python bench/writer_bench.py --quick    # 200,000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRATCH = HERE / ".scratch"
NPM_DIR = SCRATCH / "npm"
NPM_PACKAGE = "sitemap@8.0.3"

PY_CHILD = r"""
import sys, time, json
from sitemapkit.model import UrlEntry
from sitemapkit.write.writer import WriterOptions, write_sitemaps
n, out, gz, form = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4]
dedup = not form.endswith("-nodedup")
form = form.removesuffix("-nodedup")
dates = [f"2024-01-{d:02d}" for d in range(1, 32)]
def entries():
    if form == "pairs":
        for i in range(n):
            yield (f"https://example.com/page/{i}", dates[i % 31])
    else:
        for i in range(n):
            yield UrlEntry(f"https://example.com/page/{i}", lastmod=dates[i % 31])
t0 = time.perf_counter()
res = write_sitemaps(entries(), out, WriterOptions(
    base_url="https://example.com/", gzip=gz, fsync=False, dedup=dedup))
t1 = time.perf_counter()
gen = None
if len(sys.argv) > 5:  # time the generator alone, to report the writer's net rate
    t2 = time.perf_counter()
    for _ in entries():
        pass
    gen = time.perf_counter() - t2
print(json.dumps({"seconds": t1 - t0, "urls": res.urls, "files": len(res.files), "gen": gen}))
"""

NODE_CHILD = r"""
const { SitemapAndIndexStream, SitemapStream } = require('sitemap');
const { createWriteStream } = require('fs');
const { createGzip } = require('zlib');
const { Readable } = require('stream');
const path = require('path');
const n = parseInt(process.argv[1], 10), out = process.argv[2], gz = process.argv[3] === '1';
const ext = gz ? '.xml.gz' : '.xml';
const dates = [];
for (let d = 1; d <= 31; d++) dates.push(`2024-01-${String(d).padStart(2, '0')}`);
function* entries() {
  for (let i = 0; i < n; i++) {
    yield { url: `https://example.com/page/${i}`, lastmod: dates[i % 31] };
  }
}
const t0 = process.hrtime.bigint();
const sms = new SitemapAndIndexStream({
  limit: 50000,
  getSitemapStream: (i) => {
    const sitemapStream = new SitemapStream({ hostname: 'https://example.com' });
    const name = `sitemap-${i}${ext}`;
    const ws = createWriteStream(path.join(out, name));
    if (gz) sitemapStream.pipe(createGzip()).pipe(ws); else sitemapStream.pipe(ws);
    return [new URL(name, 'https://example.com/').toString(), sitemapStream, ws];
  },
});
const indexOut = createWriteStream(path.join(out, 'sitemap' + ext));
(gz ? sms.pipe(createGzip()) : sms).pipe(indexOut);
Readable.from(entries()).pipe(sms);
indexOut.on('finish', () => {
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(JSON.stringify({ seconds: s, urls: n }));
});
"""


def ensure_npm() -> None:
    marker = NPM_DIR / "node_modules" / "sitemap" / "package.json"
    if marker.exists():
        return
    NPM_DIR.mkdir(parents=True, exist_ok=True)
    (NPM_DIR / "package.json").write_text('{"name": "scratch", "private": true}\n')
    print(f"installing {NPM_PACKAGE} into {NPM_DIR} ...", file=sys.stderr)
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--silent", NPM_PACKAGE],
        cwd=NPM_DIR,
        check=True,
    )


CPU: dict[str, float] = {}


def run_child(cmd: list[str], cwd: Path | None = None) -> tuple[dict[str, object], float, float]:
    """Run ``cmd``; return its JSON line, wall seconds and peak RSS in MB.

    The child's CPU seconds (user + system, all threads) land in ``CPU["last"]``:
    on a shared machine they say more than wall time.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, cwd=cwd)
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed with {proc.returncode}")
    CPU["last"] = usage.ru_utime + usage.ru_stime
    return json.loads(output.decode().strip().splitlines()[-1]), wall, usage.ru_maxrss / 1024


def fresh(path: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="200,000 entries only")
    parser.add_argument("--sizes", type=int, nargs="*", help="entry counts to run")
    parser.add_argument("--no-npm", action="store_true", help="skip the npm peer")
    parser.add_argument("--modes", nargs="*", default=["plain", "gzip"], help="plain, gzip")
    parser.add_argument(
        "--forms",
        nargs="*",
        default=["pairs", "entries", "pairs-nodedup"],
        help="sitemapkit variants: pairs, entries, pairs-nodedup",
    )
    args = parser.parse_args()
    sizes = args.sizes or ([200_000] if args.quick else [1_000_000, 10_000_000])
    if not args.no_npm:
        ensure_npm()
    node = shutil.which("node") or "/usr/bin/node"
    print(
        f"{'entries':>11} {'mode':5} {'tool':12} {'wall s':>8} {'URLs/s':>10} "
        f"{'peak RSS MB':>11} {'files':>6} {'bytes on disk':>14} {'CPU s':>7}"
    )
    for n in sizes:
        for gz in (False, True):
            mode = "gzip" if gz else "plain"
            if mode not in args.modes:
                continue
            rates: dict[str, float] = {}
            cpus: dict[str, float] = {}
            labels = {
                "pairs": "sitemapkit",
                "entries": "sitemapkit*",
                "pairs-nodedup": "sitemapkit-nd",
            }
            for form, label in labels.items():
                if form not in args.forms:
                    continue
                out_py = fresh(SCRATCH / f"out-py-{mode}")
                cmd = [
                    sys.executable,
                    "-c",
                    PY_CHILD,
                    str(n),
                    str(out_py),
                    "1" if gz else "0",
                    form,
                ]
                if n <= 1_000_000:
                    cmd.append("gen")
                data, wall, rss = run_child(cmd)
                rates[label] = n / wall
                print(
                    f"{n:>11,} {mode:5} {label:12} {wall:>8.2f} {n / wall:>10,.0f} "
                    f"{rss:>11.1f} {data['files']:>6} {dir_size(out_py):>14,} {CPU['last']:>7.2f}"
                )
                cpus[label] = CPU["last"]
                if data.get("gen") is not None:
                    gen = float(str(data["gen"]))
                    net = n / (float(str(data["seconds"])) - gen)
                    print(
                        f"{'':>11} {'':5} {'  net':12} {'':>8} {net:>10,.0f}   "
                        f"(in-process {float(str(data['seconds'])):.2f} s minus {gen:.2f} s "
                        "making the entries)"
                    )
                shutil.rmtree(out_py)
                sys.stdout.flush()
            if args.no_npm:
                continue
            out_js = fresh(SCRATCH / f"out-npm-{mode}")
            cmd = [node, "-e", NODE_CHILD, str(n), str(out_js), "1" if gz else "0"]
            data, wall, rss = run_child(cmd, cwd=NPM_DIR)
            js_rate = n / wall
            print(
                f"{n:>11,} {mode:5} {'npm sitemap':12} {wall:>8.2f} {js_rate:>10,.0f} "
                f"{rss:>11.1f} {len(list(out_js.iterdir())):>6} {dir_size(out_js):>14,} "
                f"{CPU['last']:>7.2f}"
            )
            js_cpu = CPU["last"]
            for label, rate in rates.items():
                print(
                    f"{'':>11} {mode:5} {'ratio':12} {rate / js_rate:>8.1f}x {label}/npm "
                    f"(wall; by CPU seconds {js_cpu / cpus[label]:.1f}x)"
                )
            shutil.rmtree(out_js)
            sys.stdout.flush()
    print(
        "sitemapkit = (url, lastmod) pairs; sitemapkit* = UrlEntry objects "
        "(a frozen dataclass costs ~1 µs to build); sitemapkit-nd = pairs, dedup=False"
    )


if __name__ == "__main__":
    main()

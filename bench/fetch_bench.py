"""CPU per request of the crawl's ``Fetcher`` (issue 13), this checkout against a git ref.

What the crawl's event loop pays for HTTP, alone: one process makes a ``Fetcher`` as the
crawl does (``make_session(CrawlConfig(...))``: default concurrency and per-host limit,
keep-alive) and GETs every HTML page of the PostgreSQL 15 manual (nginx on 127.0.0.1,
as ``crawl_bench.py`` serves it) ``--rounds`` times,
bodies read (``want_body`` says text/html), with as many requests in flight as the crawl's
per-host slots allow (``--per-host``, 8).  ``time.process_time()`` over the fetch loop,
after a warm-up of 50 requests, divided by the requests: microseconds of CPU per request
in the client process (nginx is another process).  Beside them, the floor: a bare
asyncio-streams keep-alive client (8 connections, no checks, caps or pool).  Run
alternately, ``--repeat`` times each, with ``--before REF``'s tree (exported by
``startup_bench.export_tree``, run with the same interpreter and packages through
``PYTHONPATH``) and this checkout; medians.

Also timed: ``import sitemapkit.crawl.fetch`` in a fresh interpreter (CPU of the whole
process, ``wait4``), what every crawl pays before its first request.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
import crawl_bench as cb
import startup_bench as sb

DRIVER = r"""
import asyncio, json, sys, time
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.fetch import Fetcher, make_session

urls = open(sys.argv[1]).read().split()
rounds = int(sys.argv[2])

async def run():
    config = CrawlConfig(urls[0])
    session = make_session(config)
    fetcher = Fetcher(session, max_body=config.max_body, retries=config.retries,
                      total_timeout=config.read_timeout * 2 + config.connect_timeout)
    wants = lambda mime: mime == "text/html"
    got = {"bytes": 0, "bad": 0}

    async def worker(queue):
        while queue:
            url = queue.pop()
            resp = await fetcher.get(url, want_body=wants)
            got["bytes"] += len(resp.body)
            got["bad"] += resp.status != 200

    async def sweep(todo, tasks):
        queue = list(reversed(todo))
        await asyncio.gather(*(worker(queue) for _ in range(tasks)))

    tasks = min(config.concurrency, config.per_host)  # what the crawl's host slots let in
    await sweep(urls[:50], tasks)
    got["bytes"] = 0
    todo = urls * rounds
    cpu, wall = time.process_time(), time.perf_counter()
    await sweep(todo, tasks)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await session.close()
    print(json.dumps({"requests": len(todo), "cpu_s": cpu, "wall_s": wall, **got}))

asyncio.run(run())
"""

#: The floor: 8 asyncio-streams keep-alive connections, one GET each at a time, the head
#: split by lines and the body read by its Content-Length; no checks, no caps, no pool.
BARE = r"""
import asyncio, json, sys, time

urls = open(sys.argv[1]).read().split()
rounds = int(sys.argv[2])
host_port = urls[0].split("/")[2]
host, port = host_port.split(":")
got = {"bytes": 0, "bad": 0}
CRLF = "\r\n"

async def worker(queue):
    reader, writer = await asyncio.open_connection(host, int(port))
    while queue:
        path = "/" + queue.pop().split("/", 3)[3]
        request = f"GET {path} HTTP/1.1{CRLF}Host: {host_port}{CRLF}User-Agent: bare{CRLF}{CRLF}"
        writer.write(request.encode())
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split(CRLF)
        got["bad"] += lines[0].split(" ")[1] != "200"
        sizes = [l.split(":")[1] for l in lines if l.lower().startswith("content-length:")]
        got["bytes"] += len(await reader.readexactly(int(sizes[0])))
    writer.close()

async def sweep(todo):
    queue = list(reversed(todo))
    await asyncio.gather(*(worker(queue) for _ in range(8)))

async def run():
    await sweep(urls[:50])
    got["bytes"] = 0
    todo = urls * rounds
    cpu, wall = time.process_time(), time.perf_counter()
    await sweep(todo)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"requests": len(todo), "cpu_s": cpu, "wall_s": wall, **got}))

asyncio.run(run())
"""


def fetch_run(src: Path | None, urls: Path, rounds: int, label: str) -> dict[str, float]:
    """One run of the driver with the tree ``src``, or of the bare client (``None``)."""
    python = str(c.our_cli().parent / "python")
    env = {**os.environ, "PYTHONPATH": str(src or "")}
    c.log(f"run {label}")
    out = subprocess.run(
        [python, "-c", DRIVER if src else BARE, str(urls), str(rounds)],
        env=env, capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    answer: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if answer["bad"]:
        raise RuntimeError(f"{label}: {answer['bad']} responses were not 200")
    return answer


BARE_LABEL = "bare asyncio streams (floor)"


def import_cpu(src: Path, label: str) -> float:
    python = str(c.our_cli().parent / "python")
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [python, "-c", "import sitemapkit.crawl.fetch"]
    return c.run_measured(label, cmd, env=env, check=True).cpu_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", metavar="REF", help="also measure the tree of this git ref")
    ap.add_argument("--repeat", type=int, default=5, help="runs per tree (default 5)")
    ap.add_argument("--rounds", type=int, default=3, help="sweeps of the manual per run")
    args = ap.parse_args()
    load_start = c.machine_note()
    c.ensure_apt("nginx")
    root = cb.unpack(cb.SITES["postgresql-doc-15"])
    work = c.SCRATCH / "fetch-bench"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    port = c.free_port()
    urls = work / "urls.txt"
    pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html"))
    urls.write_text("\n".join(f"http://127.0.0.1:{port}/{p}" for p in pages))
    conf = cb.nginx_conf({port: root}, name="nginx-fetch")
    trees = {"this checkout": c.REPO / "src"}
    if args.before:
        trees[f"before ({args.before})"] = sb.export_tree(args.before)
    sb.compile_tree(c.REPO / "src")
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    runs: dict[str, list[dict[str, float]]] = {who: [] for who in [*trees, BARE_LABEL]}
    imports: dict[str, list[float]] = {who: [] for who in trees}
    with c.background(nginx, port, work / "nginx.out"):
        for _ in range(args.repeat):
            for who, src in trees.items():
                runs[who].append(fetch_run(src, urls, args.rounds, who))
                imports[who].append(import_cpu(src, f"{who} import"))
            runs[BARE_LABEL].append(fetch_run(None, urls, args.rounds, BARE_LABEL))
    text = report(runs, imports, load_start, len(pages), args)
    print(text)
    c.save_results("fetch_bench", {"runs": runs, "imports": imports}, text)
    return 0


def report(
    runs: dict[str, list[dict[str, float]]],
    imports: dict[str, list[float]],
    load_start: str,
    pages: int,
    args: argparse.Namespace,
) -> str:
    head = (
        f"fetch_bench: {c.our_revision()}; {load_start}; {pages} pages x {args.rounds} rounds, "
        f"medians of {args.repeat}"
    )
    rows = []
    per_request: dict[str, float] = {}
    for who, ms in runs.items():
        us = [m["cpu_s"] / m["requests"] * 1e6 for m in ms]
        per_request[who] = statistics.median(us)
        rate = statistics.median(m["requests"] / m["wall_s"] for m in ms)
        rows.append(
            [
                who,
                f"{per_request[who]:.1f} ({min(us):.1f}-{max(us):.1f})",
                f"{rate:,.0f}",
                f"{statistics.median(imports[who]) * 1000:.0f}" if who in imports else "-",
            ]
        )
    out = [
        head,
        c.table(
            ["", "CPU us/request (min-max)", "requests/s (wall)", "import CPU ms"],
            rows,
            "the Fetcher, PostgreSQL manual on nginx",
        ),
    ]
    befores = [who for who in per_request if who.startswith("before")]
    if befores:
        ours, before = per_request["this checkout"], per_request[befores[0]]
        out.append(f"CPU per request, before / this checkout: {before / ours:.2f}x")
    out.append(c.machine_note())
    return "\n\n".join(out)


if __name__ == "__main__":
    sys.exit(main())

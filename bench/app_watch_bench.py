"""The app's cost to a crawl: pages/s of a crawl started and watched from ``sitemapkit serve``
against the same crawl run from the CLI, in one run (issue 15: >= 0.9x).

Site: the PostgreSQL 15 manual (Debian ``postgresql-doc-15``, ~1,170 pages) served by
nginx on 127.0.0.1, exactly as ``bench/crawl_bench.py`` serves it (its helpers are used).

* CLI: ``sitemapkit crawl URL -o OUT`` (the sitemap, the inventory and the map published),
  timed as a whole process.
* App: ``sitemapkit serve --workspace W`` already running, a client holding the site's
  event stream open for the whole crawl (what a browser tab on the New crawl view does:
  progress 4 times a second, every new page for the growing map) and asking for the
  site every second; the crawl is started with ``POST /api/sites`` and timed from the
  child's start to its exit (``job.json``: ``started_at`` .. ``ended_at``), the same
  scope as the CLI's wall time.  Each time the app's workspace is fresh (a first crawl).

The two run ``--repeat`` times (3), in turn (which goes first alternates); medians are
compared.  pages/s = URLs
fetched (``crawled N URLs`` of the crawl's summary) / seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from crawl_bench import SITES, nginx_conf, unpack

_CRAWLED = re.compile(r"crawled ([\d,]+) URLs in")
TARGET = 0.9


def _fetched(text: str) -> int:
    found = _CRAWLED.search(text)
    if not found:
        raise RuntimeError(f"no 'crawled N URLs' line in: {text[-500:]}")
    return int(found.group(1).replace(",", ""))


def cli_once(work: Path, url: str, n: int) -> tuple[int, float]:
    out = work / f"cli-{n}"
    m = c.run_measured(
        f"cli {n}",
        [str(c.our_cli()), "crawl", url, "-o", str(out)],
        stdout=work / f"cli-{n}.out",
        stderr=work / f"cli-{n}.err",
        check=True,
    )
    return _fetched((work / f"cli-{n}.out").read_text()), m.wall_s


async def _watch(base: str, site: str, stop: asyncio.Event, seen: dict[str, int]) -> None:
    """A tab on the New crawl view: the event stream, and the site asked for every second."""
    async with aiohttp.ClientSession() as session:

        async def poll() -> None:
            while not stop.is_set():
                async with session.get(f"{base}api/sites/{site}") as resp:
                    await resp.read()
                seen["polls"] += 1
                await asyncio.sleep(1)

        async def stream() -> None:
            async with session.get(f"{base}api/sites/{site}/events") as resp:
                async for line in resp.content:
                    if line.startswith(b"event: "):
                        seen[line[7:].strip().decode()] = seen.get(line[7:].strip().decode(), 0) + 1
                    if stop.is_set():
                        return

        tasks = [asyncio.create_task(poll()), asyncio.create_task(stream())]
        await stop.wait()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _app_crawl(
    base: str, url: str, site: str, job_file: Path
) -> tuple[dict[str, int], dict[str, object]]:
    seen = {"polls": 0}
    stop = asyncio.Event()
    async with aiohttp.ClientSession() as session:
        # the site folder must exist before a tab can watch it: start, then watch at once
        async with session.post(f"{base}api/sites", json={"url": url}) as resp:
            if resp.status != 202:
                raise RuntimeError(f"POST /api/sites: {resp.status} {await resp.text()}")
        watcher = asyncio.create_task(_watch(base, site, stop, seen))
        while True:
            await asyncio.sleep(0.5)
            job = json.loads(job_file.read_text())
            if job.get("ended_at"):
                break
        stop.set()
        await watcher
    return seen, job


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def app_once(work: Path, url: str, n: int) -> tuple[int, float, dict[str, int]]:
    ws = work / f"app-{n}"
    port = c.free_port()
    log = (work / f"serve-{n}.log").open("wb")
    serve = subprocess.Popen(
        [str(c.our_cli()), "serve", "--workspace", str(ws), "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        c.wait_port(port)
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        site = f"{parts.hostname}-{parts.port}"
        c.log(f"run app {n}: POST /api/sites {url} (watched)")
        before = _cpu_s(serve.pid)
        seen, job = asyncio.run(
            _app_crawl(f"http://127.0.0.1:{port}/", url, site, ws / "sites" / site / "job.json")
        )
        seen["server_cpu_ms"] = round(1000 * (_cpu_s(serve.pid) - before))
        if job.get("exit_code") != 0:
            raise RuntimeError(f"app crawl failed: {job}")
        text = (ws / "sites" / site / "crawl.log").read_text()
        return _fetched(text), float(job["ended_at"]) - float(job["started_at"]), seen
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=60)
        log.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load_start = c.machine_note()
    c.ensure_apt("nginx")
    site = SITES["postgresql-doc-15"]
    root = unpack(site)
    port = c.free_port()
    conf = nginx_conf({port: root}, name="nginx-app")
    work = c.SCRATCH / "app-watch"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    url = f"http://127.0.0.1:{port}{site.start}"
    nginx = subprocess.Popen(
        ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    )
    rows = []
    cli_rates: list[float] = []
    app_rates: list[float] = []
    try:
        c.wait_port(port)
        for n in range(args.repeat):
            # alternate which goes first: a load that rises or falls during the run
            # (a shared machine) then favours neither
            for who in ("CLI", "app") if n % 2 == 0 else ("app", "CLI"):
                if who == "CLI":
                    pages, secs = cli_once(work, url, n)
                    cli_rates.append(pages / secs)
                    rows.append(["CLI", n + 1, pages, f"{secs:.2f}", f"{pages / secs:.1f}", ""])
                    continue
                pages, secs, seen = app_once(work, url, n)
                app_rates.append(pages / secs)
                events = (
                    f"{seen.get('progress', 0)} progress, {seen.get('pages', 0)} pages events; "
                    f"server {seen['server_cpu_ms']} ms CPU"
                )
                rows.append(["app", n + 1, pages, f"{secs:.2f}", f"{pages / secs:.1f}", events])
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
    cli_med, app_med = statistics.median(cli_rates), statistics.median(app_rates)
    got = app_med / cli_med
    text = "\n".join([
        c.table(["crawl", "run", "URLs", "s", "URLs/s", "the app watching"], rows,
                title=f"{site.package} ({url})"),
        f"median URLs/s: CLI {cli_med:.1f}, app {app_med:.1f}: app/CLI {got:.2f}x "
        f"(target >= {TARGET}x) {c.verdict(got >= TARGET)}",
        f"{load_start} at the start; {c.machine_note()} at the end",
    ])  # fmt: skip
    print(text)
    c.save_results("app_watch", {"cli": cli_rates, "app": app_rates, "ratio": got}, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What ``sitemapkit crawl URL -o OUT`` costs outside its page loop (issue 13), with wget.

Two sites on nginx (127.0.0.1), as ``crawl_bench.py`` serves them:

* ``one-page``: a single ``index.html`` (and a ``robots.txt``): the floor, what every
  crawl pays before its first request and after its last one;
* ``postgresql-doc-15``: the PostgreSQL 15 manual, 1,169 pages.

Per site, alternating run by run (``--repeat``, default 5; medians): the whole process
``python -m sitemapkit crawl URL -o OUT --workers 1`` of this checkout, of ``--before
REF`` too when given (the tree of REF exported to the scratch folder and run with the
same interpreter and packages through ``PYTHONPATH``: before and after in one run), and
``wget --spider -r`` on the same site.  Both trees are byte-compiled first, as
``pip install`` does.  Then one run of each tree under ``crawl_phases.py`` splits its CPU:
interpreter start-up, imports + CLI, store open, crawl loop, publish, the rest.

Then the other commands users time, on small inputs, each tree alternating run by run
(medians of ``--repeat``): ``--version``, ``build`` of a one-URL list, ``validate`` and
``urls`` of the one-page crawl's sitemap, ``visualize`` of its crawl store: their start-up
and exit, which every run of them pays.

CPU seconds (user + system from ``wait4``) say more than wall time on a shared machine;
both are printed.  ``--workers 1``: the phases are counted in one process.
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

PHASES = (
    "interpreter",
    "imports + CLI",
    "store open",
    "crawl loop",
    "publish",
    "rest of the command",
    "exit",
)
ONE_PAGE = "<!doctype html><html><head><title>One</title></head><body><p>one</p></body></html>"


def export_tree(ref: str) -> Path:
    """``src/`` of git ``ref`` in the scratch folder, byte-compiled."""
    rev = subprocess.run(
        ["git", "-C", str(c.REPO), "rev-parse", "--short", ref],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    dest = c.SCRATCH / f"tree-{rev}"
    if not (dest / "src").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(c.REPO), "archive", rev, "src"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    compile_tree(dest / "src")
    return dest / "src"


def compile_tree(src: Path) -> None:
    python = c.our_cli().parent / "python"
    subprocess.run([str(python), "-m", "compileall", "-q", str(src)], check=True)


def ours(src: Path, url: str, out: Path, label: str, driver: Path | None = None) -> c.Measurement:
    shutil.rmtree(out, ignore_errors=True)
    python = str(c.our_cli().parent / "python")
    head = [python, str(c.BENCH_DIR / "crawl_phases.py"), str(driver)] if driver else [python]
    cmd = [*head, *([] if driver else ["-m", "sitemapkit"]), "crawl", url, "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    return c.run_measured(label, [*cmd, "--workers", "1"], env=env, check=True)


def wget(url: str, work: Path, name: str) -> c.Measurement:
    return cb.wget_once(work, url, name)[0]


def other_commands(work: Path) -> dict[str, list[str]]:
    """The other timed commands' arguments, on inputs made from the one-page crawl."""
    crawled = work / "commands-in"
    urls = work / "urls.txt"
    urls.write_text("https://example.com/\n")
    out = work / "commands-out"
    return {
        "--version": ["--version"],
        "build urls.txt": ["build", str(urls), "-o", str(out / "build")],
        "validate sitemap.xml": ["validate", str(crawled / "sitemap.xml")],
        "urls sitemap.xml": ["urls", str(crawled / "sitemap.xml")],
        "visualize crawl.sqlite": [
            "visualize", str(crawled / "crawl.sqlite"), "-o", str(out / "map.html")
        ],
    }  # fmt: skip


def time_commands(
    trees: dict[str, Path], work: Path, url: str, repeat: int
) -> dict[str, dict[str, list[c.Measurement]]]:
    """Each command of :func:`other_commands`, every tree in turn, ``repeat`` times."""
    shutil.rmtree(work / "commands-in", ignore_errors=True)
    ours(c.REPO / "src", url, work / "commands-in", "one-page crawl for the other commands")
    python = str(c.our_cli().parent / "python")
    found: dict[str, dict[str, list[c.Measurement]]] = {}
    for name, args in other_commands(work).items():
        found[name] = {who: [] for who in trees}
        for _ in range(repeat):
            for who, src in trees.items():
                env = {**os.environ, "PYTHONPATH": str(src)}
                cmd = [python, "-m", "sitemapkit", *args]
                found[name][who].append(c.run_measured(f"{who} {name}", cmd, env=env))
    return found


def medians(runs: list[c.Measurement]) -> tuple[float, float]:
    return statistics.median(m.wall_s for m in runs), statistics.median(m.cpu_s for m in runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--before", metavar="REF", help="also measure the tree of this git ref")
    ap.add_argument("--repeat", type=int, default=5, help="runs per crawler (default 5)")
    ap.add_argument("--quick", action="store_true", help="only the one-page site, 3 runs")
    args = ap.parse_args()
    repeat = 3 if args.quick else args.repeat
    load_start = c.machine_note()
    c.ensure_apt("nginx", "wget")
    work = c.SCRATCH / "startup-out"
    shutil.rmtree(work, ignore_errors=True)
    (work / "one-page").mkdir(parents=True)
    (work / "one-page" / "index.html").write_text(ONE_PAGE)
    roots = {"one-page": work / "one-page"}
    if not args.quick:
        roots["postgresql-doc-15"] = cb.unpack(cb.SITES["postgresql-doc-15"])
    ports = {name: c.free_port() for name in roots}
    conf = cb.nginx_conf({ports[n]: roots[n] for n in roots}, name="nginx-startup")
    trees = {"this checkout": c.REPO / "src"}
    if args.before:
        trees[f"before ({args.before})"] = export_tree(args.before)
    compile_tree(c.REPO / "src")
    nginx = ["nginx", "-p", str(conf.parent), "-c", str(conf), "-g", "daemon off;"]
    results: dict[str, dict[str, list[c.Measurement]]] = {}
    phases: dict[str, dict[str, dict[str, float]]] = {}
    with c.background(nginx, next(iter(ports.values())), work / "nginx.out"):
        for name in roots:
            c.wait_port(ports[name])
            start = "/index.html" if name != "one-page" else "/"
            url = f"http://127.0.0.1:{ports[name]}{start}"
            runs: dict[str, list[c.Measurement]] = {who: [] for who in [*trees, "wget"]}
            for i in range(repeat):
                for who, src in trees.items():
                    runs[who].append(ours(src, url, work / f"out-{i}", f"{who} {name}"))
                runs["wget"].append(wget(url, work, name))
            results[name] = runs
            phases[name] = {}
            for who, src in trees.items():
                driver = work / "phases.json"
                m = ours(src, url, work / "out-phases", f"{who} {name} (phases)", driver)
                seen = json.loads(driver.read_text())
                seen["exit"] += max(0.0, m.cpu_s - seen.pop("seen"))
                seen["whole process"] = m.cpu_s
                phases[name][who] = seen
        one_page = f"http://127.0.0.1:{ports['one-page']}/"
        commands = time_commands(trees, work, one_page, repeat)
    text = report(results, phases, list(trees), load_start, repeat)
    text += "\n\n" + commands_report(commands, list(trees))
    print(text)
    runs = {s: {w: [m.as_dict() for m in ms] for w, ms in r.items()} for s, r in results.items()}
    runs |= {n: {w: [m.as_dict() for m in ms] for w, ms in r.items()} for n, r in commands.items()}
    c.save_results(
        "startup_bench" + ("_quick" if args.quick else ""), {"runs": runs, "phases": phases}, text
    )
    return 0


def report(
    results: dict[str, dict[str, list[c.Measurement]]],
    phases: dict[str, dict[str, dict[str, float]]],
    trees: list[str],
    load_start: str,
    repeat: int,
) -> str:
    out = [f"startup_bench: {c.our_revision()}; {load_start}; medians of {repeat}"]
    for name, runs in results.items():
        rows = []
        w_wall = medians(runs["wget"])[0]
        for who, ms in runs.items():
            wall, cpu = medians(ms)
            rows.append([who, f"{wall:.3f}", f"{cpu:.3f}", c.ratio(w_wall, wall)])
        out.append(c.table(["", "wall s", "CPU s", "speed vs wget (wall)"], rows, name))
        prow = [[p, *(f"{phases[name][t].get(p, 0.0):.3f}" for t in trees)] for p in PHASES]
        prow.append(["whole process", *(f"{phases[name][t]['whole process']:.3f}" for t in trees)])
        out.append(c.table(["CPU s (one run each)", *trees], prow, f"{name}: where the CPU went"))
    out.append(c.machine_note())
    return "\n\n".join(out)


def commands_report(commands: dict[str, dict[str, list[c.Measurement]]], trees: list[str]) -> str:
    rows = []
    for name, runs in commands.items():
        cpu = [medians(runs[who])[1] for who in trees]
        codes = sorted({m.returncode for who in trees for m in runs[who]})
        rows.append([name, *(f"{x:.3f}" for x in cpu), ", ".join(map(str, codes))])
    heads = ["median CPU s", *trees, "exit codes"]
    return c.table(heads, rows, "other commands (small inputs): start-up and exit")


if __name__ == "__main__":
    sys.exit(main())

"""Publishing a set: never mixed (signals at every step), and only our own files removed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapdata.xmlread import SM, locs, no_temporaries, read_xml
from sitemapkit.write import publish
from sitemapkit.write.publish import manifest_path, read_manifest
from sitemapkit.write.writer import WriteResult, WriterOptions, write_sitemaps

BASE = "https://example.com/"
MANIFEST = ".sitemapkit-manifest.json"


def generation(tag: str, n: int) -> list[str]:
    return [f"{BASE}{tag}/{i}" for i in range(n)]


def write(folder: Path, tag: str, n: int, max_urls: int = 2) -> WriteResult:
    options = WriterOptions(base_url=BASE, max_urls=max_urls)
    return write_sitemaps(generation(tag, n), folder, options)


def served(folder: Path) -> tuple[set[str], list[str]]:
    """What a search engine reading ``sitemap.xml`` now sees: the generations and the URLs."""
    root = read_xml(folder / "sitemap.xml")
    if root.tag == f"{SM}urlset":
        seen = locs(folder / "sitemap.xml")
    else:
        seen = []
        for loc in locs(folder / "sitemap.xml"):
            seen += locs(folder / loc.removeprefix(BASE))
    return {url.removeprefix(BASE).split("/")[0] for url in seen}, seen


@pytest.fixture
def hook() -> Iterator[list[str]]:
    """Record every publish step; the test may replace ``publish.step_hook`` to act on one."""
    steps: list[str] = []
    publish.step_hook = steps.append
    yield steps
    publish.step_hook = None


def test_a_file_no_manifest_lists_is_never_removed(tmp_path: Path) -> None:
    (tmp_path / "sitemap-2024.xml").write_text("the user's own archive")
    (tmp_path / "keep-me.xml").write_text("not ours")
    first = write(tmp_path, "a", 7)
    assert first.warnings == [
        "left alone, as no manifest of an earlier run says they are ours: sitemap-2024.xml"
    ]
    assert read_manifest(tmp_path, "sitemap") == {f"sitemap-{i}.xml" for i in (1, 2, 3, 4)} | {
        "sitemap.xml"
    }
    second = write(tmp_path, "b", 3)
    assert second.warnings == []  # the manifest knows; sitemap-2024.xml is simply not ours
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        MANIFEST,
        "keep-me.xml",
        "sitemap-1.xml",
        "sitemap-2.xml",
        "sitemap-2024.xml",
        "sitemap.xml",
    ]
    assert (tmp_path / "sitemap-2024.xml").read_text() == "the user's own archive"
    assert served(tmp_path) == ({"b"}, generation("b", 3))


def test_a_folder_without_manifest_loses_nothing(tmp_path: Path) -> None:
    """Parts left by a run before manifests existed are reported, not removed."""
    for i in range(1, 8):
        (tmp_path / f"sitemap-{i}.xml").write_text("old")
    result = write(tmp_path, "a", 3)
    assert result.warnings == [
        "left alone, as no manifest of an earlier run says they are ours: sitemap-3.xml, "
        "sitemap-4.xml, sitemap-5.xml, sitemap-6.xml, sitemap-7.xml"
    ]
    assert (tmp_path / "sitemap-7.xml").read_text() == "old"


@pytest.mark.parametrize(
    "files",
    [["../outside.xml"], ["/etc/passwd"], ["sub/x.xml"], "sitemap-9.xml", [7], ["crawl.sqlite"]],
)
def test_a_manifest_names_files_in_the_folder_only(tmp_path: Path, files: object) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "outside.xml").write_text("keep")
    (out / "sitemap-9.xml").write_text("keep")
    (out / "crawl.sqlite").write_text("keep")
    (out / MANIFEST).write_text(json.dumps({"files": files}))
    write(out, "a", 1)
    assert (tmp_path / "outside.xml").read_text() == "keep"
    assert (out / "sitemap-9.xml").read_text() == "keep"
    assert (out / "crawl.sqlite").read_text() == "keep"


def test_damaged_manifest_removes_nothing(tmp_path: Path) -> None:
    write(tmp_path, "a", 7)
    manifest_path(tmp_path, "sitemap").write_text('{"files": ["sitemap-4.xml", ')
    write(tmp_path, "b", 1)
    assert (tmp_path / "sitemap-4.xml").exists()


def test_each_basename_has_its_own_manifest(tmp_path: Path) -> None:
    write(tmp_path, "a", 5)
    options = WriterOptions(base_url=BASE, max_urls=2, basename="news")
    write_sitemaps(generation("n", 5), tmp_path, options)
    write_sitemaps(generation("n", 1), tmp_path, options)
    assert (tmp_path / "sitemap-3.xml").exists()  # the other set is not touched
    assert not (tmp_path / "news-3.xml").exists()
    assert read_manifest(tmp_path, "news") == {"news.xml"}


def test_manifest_covers_old_and_new_before_the_first_rename(
    tmp_path: Path, hook: list[str]
) -> None:
    write(tmp_path, "a", 7)
    during: list[set[str] | None] = []
    publish.step_hook = lambda step: during.append(read_manifest(tmp_path, "sitemap"))
    write(tmp_path, "b", 3)
    before_renames = during[1]  # after the first "manifest" step
    assert before_renames == {f"sitemap-{i}.xml" for i in range(1, 5)} | {"sitemap.xml"}
    assert read_manifest(tmp_path, "sitemap") == {"sitemap-1.xml", "sitemap-2.xml", "sitemap.xml"}


def _steps(tmp_path: Path, hook: list[str]) -> list[str]:
    folder = tmp_path / "probe"
    write(folder, "a", 9)
    hook.clear()
    write(folder, "b", 5)
    return list(hook)


def test_sigint_at_every_publish_step_never_serves_a_mixed_set(
    tmp_path: Path, hook: list[str]
) -> None:
    """A real SIGINT (to this process) at each step: old set or new set, never both."""
    steps = _steps(tmp_path, hook)
    assert steps[0] == "manifest"
    assert steps[1:5] == [f"rename sitemap-{i}.xml" for i in (1, 2, 3)] + ["rename sitemap.xml"]
    assert "remove sitemap-5.xml" in steps
    assert steps[-1] == "done"
    for k, target in enumerate(steps):
        folder = tmp_path / f"step{k}"
        write(folder, "a", 9)

        calls: list[str] = []

        def interrupt(step: str, k: int = k, calls: list[str] = calls) -> None:
            calls.append(step)
            if len(calls) == k + 1:
                signal.raise_signal(signal.SIGINT)

        publish.step_hook = interrupt
        try:
            write(folder, "b", 5)
        except KeyboardInterrupt:
            interrupted = True
        else:
            interrupted = False
        publish.step_hook = None
        assert interrupted, target
        generations, seen = served(folder)
        if k == 0:  # before anything was renamed: the old set, whole
            assert (generations, seen) == ({"a"}, generation("a", 9)), target
        else:  # once renaming starts it finishes: the new set, whole
            assert (generations, seen) == ({"b"}, generation("b", 5)), target
        assert no_temporaries(folder), target
        # an interrupted removal leaves old parts the manifest still names: the next run removes
        write(folder, "c", 1)
        assert sorted(p.name for p in folder.iterdir()) == [MANIFEST, "sitemap.xml"], target


def test_signals_are_restored_after_publishing(tmp_path: Path) -> None:
    before = [signal.getsignal(s) for s in publish.DEFERRED_SIGNALS]
    write(tmp_path, "a", 5)
    assert [signal.getsignal(s) for s in publish.DEFERRED_SIGNALS] == before


CHILD = r"""
import os, pathlib, sys, time
from sitemapkit.cli import main

marker, sent = sys.argv[1], sys.argv[2]
real_replace = pathlib.Path.replace
renames = 0

def replace_and_hold(self, target):
    # After the first part is renamed into place the marker appears; the next rename
    # waits until the parent has sent its SIGINT, so the signal lands mid-publish
    # however loaded the machine (no hook in the code under test is needed).
    global renames
    if not str(target).endswith(".xml"):
        return real_replace(self, target)
    renames += 1
    if renames == 2:
        deadline = time.monotonic() + 120
        while not os.path.exists(sent) and time.monotonic() < deadline:
            time.sleep(0.01)
    result = real_replace(self, target)
    if renames == 1:
        open(marker, "w").close()
    return result

pathlib.Path.replace = replace_and_hold
sys.exit(main(sys.argv[3:]))
"""


def test_real_sigint_to_a_real_build_during_renames(tmp_path: Path) -> None:
    out = tmp_path / "out"
    old = tmp_path / "old.txt"
    old.write_text("\n".join(generation("a", 300)) + "\n")
    new = tmp_path / "new.txt"
    new.write_text("\n".join(generation("b", 200)) + "\n")
    args = ["build", "-o", str(out), "--base-url", BASE, "--max-urls", "2"]
    subprocess.run([sys.executable, "-m", "sitemapkit", *args[:1], str(old), *args[1:]], check=True)
    marker, sent = tmp_path / "renaming", tmp_path / "sent"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(marker), str(sent), args[0], str(new), *args[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    while not marker.exists() and child.poll() is None:
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGINT)
    sent.touch()
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert b"interrupted" in err
    generations, seen = served(out)
    assert (generations, seen) == ({"b"}, generation("b", 200))
    assert no_temporaries(out)

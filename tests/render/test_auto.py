"""``--render auto``'s two signals: the raw HTML is a shell, and the section has shown it."""

from __future__ import annotations

import asyncio

import pytest

from sitemapkit.crawl.extract import extract_page
from sitemapkit.render.auto import (
    RawSignals,
    SectionSampler,
    looks_like_app_shell,
    raw_signals,
    section_of,
)

URL = "https://example.com/app/"
HEADERS = {"Content-Type": "text/html"}


def shell(html: str) -> bool:
    body = html.encode()
    return looks_like_app_shell(body, extract_page(body, url=URL, headers=HEADERS))


@pytest.mark.parametrize(
    "html",
    [
        "<html><body><div id='root'></div><script src='/main.js'></script></body></html>",
        "<html><body><div id=__next>\n  </div><script>x()</script></body></html>",
        "<html><body><app-root></app-root><script src=a.js></script></body></html>",
        # server-rendered links around an empty mount point: the application is still to come
        "<html><body><nav><a href=/a>a</a><a href=/b>b</a><a href=/c>c</a></nav>"
        '<div id="app"></div><script type=module src=/main.js></script></body></html>',
        # no mount point, but scripts, one link and hardly any text
        "<html><body><a href='/'>Home</a><main></main><script src=a.js></script></body></html>",
    ],
)
def test_application_shells_are_recognised(html: str) -> None:
    assert shell(html)


@pytest.mark.parametrize(
    "html",
    [
        # a server-rendered page with a script and a filled mount point
        "<html><body><div id='root'><a href='/a'>a</a><a href='/b'>b</a><a href='/c'>c</a>"
        "</div><script src='/main.js'></script></body></html>",
        # few links but no script: nothing would change by rendering
        "<html><body><p>Short.</p><a href='/'>Home</a></body></html>",
        # few links, a script, and a real article
        "<html><body><article>" + "Words of an article. " * 20 + "</article>"
        "<script>track()</script></body></html>",
        # an empty mount point and one link, but no code: JSON-LD is data, not a script
        "<html><head><script type='application/ld+json'>{}</script></head>"
        "<body><div id=root></div><a href='/'>Home</a></body></html>",
        # javadoc's overview-summary.html: a script redirect that names its canonical
        "<html><head><link rel=canonical href='/index.html'>"
        "<script>window.location.replace('index.html')</script></head>"
        "<body><p><a href='/index.html'>index.html</a></p></body></html>",
        # an empty element with another id, many links, a script: not a mount point
        "<html><body><span id='skip-navbar-top'></span><a href=/a>a</a><a href=/b>b</a>"
        "<a href=/c>c</a><script src='/script.js'></script></body></html>",
    ],
)
def test_server_rendered_pages_are_not_shells(html: str) -> None:
    assert not shell(html)


@pytest.mark.parametrize(
    ("html", "signals"),
    [
        ("<p>no scripts</p>", RawSignals()),
        ("<script src='/nav.js'></script>", RawSignals(scripts=True)),
        ("<script>window.dataLayer = [['page', location.pathname]];</script>", RawSignals(True)),
        ("<SCRIPT type='text/javascript'>var pathtoroot = '../';</SCRIPT>", RawSignals(True)),
        ('<script type=\'application/ld+json\'>{"a": "innerHTML"}</script>', RawSignals()),
        ("<script type=text/template><a href=/x>x</a></script>", RawSignals()),
        (
            "<div id=more></div><script>fetch('/api').then(r => r.json()).then(l => "
            "{ document.getElementById('more').innerHTML = l.join(' '); });</script>",
            RawSignals(scripts=True, writes_markup=True),
        ),
        ("<script>$('#nav').append('<a href=/x>x</a>')</script>", RawSignals(True, True)),
        ("<script type=module>document.body.appendChild(a)</script>", RawSignals(True, True)),
        # a script file that writes markup cannot be seen from the page: --render always
        ("<script src='/menu.js'>/* innerHTML */</script>", RawSignals(scripts=True)),
    ],
)
def test_raw_signals_read_the_scripts_of_the_page(html: str, signals: RawSignals) -> None:
    assert raw_signals(f"<html><body>{html}</body></html>".encode()) == signals


def test_sections_are_host_and_first_segment() -> None:
    assert section_of("https://example.com/") == "example.com/"
    assert section_of("https://example.com/about") == "example.com/"
    assert section_of("https://example.com/shop/") == "example.com/shop/"
    assert section_of("https://example.com/shop/a/b?x=1") == "example.com/shop/"
    assert section_of("https://cdn.example.com/shop/a") == "cdn.example.com/shop/"


async def test_a_section_is_sampled_then_decided() -> None:
    sampler = SectionSampler(sample=3)
    # /docs/: three renders found nothing new -> left to HTTP
    for i in range(3):
        assert await sampler.wants(f"https://e.com/docs/{i}") == "section-sample"
        sampler.learn(f"https://e.com/docs/{i}", found_new=False)
    assert await sampler.wants("https://e.com/docs/9") is None
    # /app/: the second render found a link the raw HTML lacked -> always rendered
    assert await sampler.wants("https://e.com/app/1") == "section-sample"
    sampler.learn("https://e.com/app/1", found_new=False)
    assert await sampler.wants("https://e.com/app/2") == "section-sample"
    sampler.learn("https://e.com/app/2", found_new=True)
    assert await sampler.wants("https://e.com/app/3") == "section-needs-js"
    # a late "nothing new" does not undo a verdict
    sampler.learn("https://e.com/app/0", found_new=False)
    assert sampler.verdicts() == {"e.com/docs/": False, "e.com/app/": True}


async def test_pages_arriving_during_the_sample_wait_for_its_verdict() -> None:
    sampler = SectionSampler(sample=2)
    first = [await sampler.wants(f"https://e.com/s/{i}") for i in range(2)]
    assert first == ["section-sample", "section-sample"]
    waiting = [asyncio.create_task(sampler.wants(f"https://e.com/s/{i}")) for i in range(2, 12)]
    await asyncio.sleep(0)
    assert not any(t.done() for t in waiting)  # no blind renders while the sample is out
    sampler.forget("https://e.com/s/0")  # a sample was cancelled: exactly one waiter replaces it
    await asyncio.sleep(0)
    assert [t.result() for t in waiting if t.done()] == ["section-sample"]
    sampler.learn("https://e.com/s/1", found_new=False)
    sampler.learn("https://e.com/s/2", found_new=False)
    assert await asyncio.gather(*waiting) == ["section-sample", *([None] * 9)]

"""Send what a crawl store has not yet told IndexNow, and log what was accepted.

The URLs come from the store's submission log (:meth:`CrawlStore.indexnow_pending`):
added, changed or removed since their last accepted submission.  They are read in
pages, cut into requests of one host and at most 10,000 URLs
(:func:`~sitemapkit.indexnow.protocol.batches`), and each request is sent only once
the host's key file is proven (:mod:`~sitemapkit.indexnow.keyfile`).  ``429`` and
``5xx`` answers (and a lost connection) are asked again with exponential back-off,
honouring ``Retry-After``, at most ``retries`` times and never waiting longer than
``max_retry_wait``: a longer wait leaves the batch for the next run.  Every request is
logged; only an accepted one (200/202) marks its URLs sent, which is what makes a
rerun send nothing twice and a failed batch go next time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.fetch import Fetcher, make_session, one_line
from sitemapkit.crawl.fetch import retry_after_seconds as _retry_after
from sitemapkit.crawl.httpclient import ConnectError, HttpClient, HttpError
from sitemapkit.indexnow.keyfile import key_file_problem
from sitemapkit.indexnow.protocol import (
    CONTENT_TYPE,
    DEFAULT_ENDPOINT,
    Batch,
    accepted,
    batches,
    body,
    default_key_location,
    host_of,
    meaning,
    retryable,
)
from sitemapkit.store.base import CrawlStore
from sitemapkit.store.rows import SubmissionRow

#: Pending URLs read from the store at a time (cut into requests of at most 10,000).
_PAGE = 50_000
#: Characters of an endpoint's answer quoted in a message.
_QUOTE = 200


@dataclass(frozen=True, slots=True)
class Settings:
    """How to submit: the key, where it is served, the endpoint, how hard to retry."""

    key: str
    endpoint: str = DEFAULT_ENDPOINT
    #: ``--key-location``: used for the batches of its own host (others: the default).
    key_location: str | None = None
    dry_run: bool = False
    retries: int = 4
    max_retry_wait: float = 60.0
    backoff_base: float = 1.0
    user_agent: str | None = None


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What became of one request (``status`` None: no answer, or never sent)."""

    batch: Batch
    key_location: str
    status: int | None
    accepted: bool
    detail: str
    attempts: int = 0


def run_problem(store: CrawlStore) -> str | None:
    """Why the store's URLs cannot be submitted now (an unfinished run), or None."""
    runs = store.runs()
    if not runs:
        return f"{store.name} holds no crawl yet"
    last = runs[-1]
    if last.state != "finished":
        return (
            f"the last run of {store.name} is {last.state}, not finished: pages it has not "
            "reached are undecided (finish it with crawl --resume first)"
        )
    return None


def key_location_for(batch: Batch, settings: Settings) -> str:
    """``--key-location`` when it is on the batch's host, else ``https://HOST/KEY.txt``."""
    if settings.key_location is not None and host_of(settings.key_location) == batch.host:
        return settings.key_location
    return default_key_location(batch.origin, settings.key)


class Submitter:
    """Sends batches on one session: the key checks (cached per location) and the POSTs."""

    def __init__(self, session: HttpClient, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.fetcher = Fetcher(session, max_body=1024, retries=2, backoff_base=0.5)
        self._keys: dict[str, str | None] = {}

    async def send(self, batch: Batch) -> BatchResult:
        location = key_location_for(batch, self.settings)
        if self.settings.dry_run:
            return BatchResult(batch, location, None, False, "dry run: not sent")
        if location not in self._keys:
            self._keys[location] = await key_file_problem(self.fetcher, location, self.settings.key)
        problem = self._keys[location]
        if problem is not None:
            return BatchResult(batch, location, None, False, problem)
        return await self._post(batch, location)

    async def _post(self, batch: Batch, location: str) -> BatchResult:
        data = body(batch, self.settings.key, location)
        attempt = 0
        while True:
            attempt += 1
            status, detail, wait = await self._post_once(data)
            ok = status is not None and accepted(status)
            again = status is None or retryable(status)
            if ok or not again or attempt > self.settings.retries:
                return BatchResult(batch, location, status, ok, detail, attempt)
            if wait is None:
                wait = self.settings.backoff_base * (2 ** (attempt - 1))
            if wait > self.settings.max_retry_wait:
                cap = self.settings.max_retry_wait
                detail += f"; asked to wait {wait:.0f} s, over the {cap:.0f} s cap"
                return BatchResult(batch, location, status, False, detail, attempt)
            await asyncio.sleep(wait)

    async def _post_once(self, data: bytes) -> tuple[int | None, str, float | None]:
        """``(status, detail, Retry-After seconds)`` of one POST (status None: no answer)."""
        endpoint = self.settings.endpoint
        headers = {"Content-Type": CONTENT_TYPE}
        try:
            async with asyncio.timeout(60):
                resp = await self.session.send("POST", endpoint, headers, data)
                try:
                    raw, _cut = await resp.read(4096, keep_cut=True)
                finally:
                    resp.close()
                text = raw.decode("utf-8", "replace")
                wait = _retry_after(resp.headers.get("Retry-After"))
                status = resp.status
        except TimeoutError:
            return None, f"{endpoint}: timed out", None
        except ConnectError as exc:
            return None, f"{endpoint}: {exc}", None
        except (HttpError, OSError, ValueError) as exc:
            return None, f"{endpoint}: {one_line(str(exc)) or type(exc).__name__}", None
        detail = f"{status} {meaning(status)}"
        quoted = one_line(text)[:_QUOTE]
        if quoted and not accepted(status):
            detail += f" (the endpoint says: {quoted})"
        return status, detail, wait


async def submit(
    store: CrawlStore,
    settings: Settings,
    report: Callable[[BatchResult], None] | None = None,
) -> list[BatchResult]:
    """Send every pending URL of ``store``; log each request; return each batch's result.

    The caller checks :func:`run_problem` and the settings first (a bad key or an
    ``http`` endpoint is the user's mistake, not a batch's).
    """
    config = CrawlConfig(start_url=settings.endpoint, concurrency=2, per_host=2)
    if settings.user_agent:
        config.user_agent = settings.user_agent
    results: list[BatchResult] = []
    async with make_session(config) as session:
        submitter = Submitter(session, settings)
        after = 0
        while page := store.indexnow_pending(after, _PAGE):
            after = page[-1].url_id
            for batch in batches(page):
                result = await submitter.send(batch)
                if result.attempts:  # a request was made: log it, accepted or not
                    row = SubmissionRow(
                        time.time(),
                        settings.endpoint,
                        batch.host,
                        len(batch.changes),
                        result.status,
                        result.accepted,
                        result.detail,
                    )
                    store.record_submission(row, batch.changes if result.accepted else ())
                    store.commit()
                results.append(result)
                if report is not None:
                    report(result)
    return results

"""The ONE compact set of URL fingerprints: the writer's first-wins dedup and the validator's
duplicate check across a set both use :class:`SeenUrls`, with one meaning of ``add``
(``True``: new, ``False``: already there).

A Python ``set`` of the URLs (or of their hashes) costs 50-100 bytes per URL:
about 1 GB at 10,000,000 URLs.  This table keeps 56 bits of each URL's 64-bit
hash in 5 bytes: the low 16 bits choose one of 65,536 buckets, the next 40
bits are stored in it, and membership is a C-level ``bytearray.find`` over
one small bucket.

All buckets live in ONE anonymous private ``mmap`` (the arena), each in a
fixed-size region, with one ``array`` of where each region's used part ends.
There are no per-bucket objects, so nothing is lost to object headers,
per-bucket over-allocation or allocator fragmentation: 65,536 separate
``bytearray`` buckets (the previous layout) came to ~90 MB at 10,000,000 URLs
for 50 MB of fingerprints.  Regions are sized near the mean fill; a
fingerprint whose region is full goes to a second arena of 8-slot regions
(2.6 MB), then to a per-bucket ``bytearray`` in a dict.  When more than 1/32
of the entries have overflowed, every region grows *in place*: doubling
while the arena is under 16 MB, then by 1/16.  ``mmap.resize`` is an
``mremap`` (no copy, and untouched pages cost nothing), and regions are
moved back to front with ``mmap.move``, so growth never holds two copies of
the table (a ``bytearray`` arena grown by ``realloc`` may copy below glibc's
mmap threshold).  At 10,000,000 URLs the arena is 93 % full: ~57 MB in all,
about 5.7 bytes per URL.

Measured (``bench/writer_bench.py``, same run, loaded 2-core machine): peak
RSS of a 10,000,000-URL plain write 79.5 MB (was 118 MB), gzip 81 MB (was
119); throughput at 1,000,000 about the same as before (696k vs 719k URLs/s),
at 10,000,000 ~20 % lower (549k vs 690k URLs/s plain): the arena trades
speed for memory.  What the time goes to is scanning: ``find`` over a
~790-byte region costs ~0.4 µs, and ~30 % of lookups land on a full region
and also search the spill arena.  Tried and not kept: 2¹⁷ or 2²⁰ buckets
(shorter scans, 2¹⁷ was ~15 % faster at 10M, but 7-35 MB more for the
wider variance of fill per region); a ``bytearray`` arena (same speed: find
and slice assignment cost the same on an mmap); growing by 1/8 (fewer
growth passes, ~0.6 s of 18 s at 10M either way, but emptier regions).

Not built yet, measured only: an exact two-stage scheme (4-byte stage-one
fingerprints, 48 bits with the bucket: ~0.18 false hits expected at 10M;
every "seen" hit verified at commit by re-reading the still-unpublished
parts, false ones re-added before publishing) would save ~10 MB.  The re-read
(regex over each part, set intersection with the suspects) took 1.3 s plain
and 1.75 s gzip for 10,000,000 URLs (0.13-0.18 µs per URL, paid whenever the
input has any real duplicate), plus memory or a temporary file for every
suspect entry.

Two different URLs are taken for one only if their 56-bit fingerprints match:
the expected number of such collisions is n²/2⁵⁷, about 0.0007 at 10,000,000
URLs and 0.07 at 100,000,000.  Python's ``hash(str)`` (SipHash, randomised per
process) supplies the bits; the set lives only as long as one writer, so
randomisation is harmless.
"""

from __future__ import annotations

import mmap
from array import array
from typing import Final

BUCKET_BITS: Final = 16  # SeenUrls.first_seen/add_new spell these out: change them with
BUCKETS: Final = 1 << BUCKET_BITS
BUCKET_MASK: Final = BUCKETS - 1
FP_BYTES: Final = 5
FP_MASK: Final = (1 << (8 * FP_BYTES)) - 1
#: Slots per bucket region at the start (65,536 × 4 × 5 bytes = 1.3 MB).
START_SLOTS: Final = 4
#: Grow the regions when more than 1/2**OVERFLOW_SHIFT of the entries overflowed.
OVERFLOW_SHIFT: Final = 5
#: Overflow slots per bucket in the second arena (65,536 × 8 × 5 bytes = 2.6 MB).
SPILL_REGION: Final = 8 * FP_BYTES
#: Above DOUBLE_BELOW the regions grow by 1/2**GROWTH_SHIFT.
GROWTH_SHIFT: Final = 4
#: Below this arena size the regions double when they grow; above it, +1/8.
DOUBLE_BELOW: Final = 16 * 1024 * 1024


def fingerprint(h: int) -> bytes:
    """The 40 stored bits of a hash (its low 16 bits name the bucket)."""
    return ((h >> BUCKET_BITS) & FP_MASK).to_bytes(FP_BYTES, "little")


class SeenUrls:
    """Fingerprints of the URLs written so far.

    ``arena``, ``ends`` and ``region`` are public so the writer's hot loop
    can inline the common case (found, or room in the region); ``region``
    changes when the table grows, which only :meth:`add_full` and
    :meth:`add_spill` can do.
    """

    __slots__ = ("arena", "count", "ends", "extra", "overflowed", "region", "spill", "spills")

    def __init__(self, slots: int = START_SLOTS) -> None:
        self.region = slots * FP_BYTES  # bytes per bucket region
        # Private anonymous maps: pages cost memory only once written, and resize()
        # is an mremap (no copy, no second table during growth).
        self.arena = mmap.mmap(-1, BUCKETS * self.region, flags=mmap.MAP_PRIVATE)
        # where each region's used part ends (an offset into the arena): one lookup
        # gives the search range and the insert position
        self.ends = array("Q", range(0, BUCKETS * self.region, self.region))
        # Overflow of a full region: a second arena of small regions, then a dict
        # (per-bucket objects cost ~150 bytes each, so they are the last resort).
        self.spill = mmap.mmap(-1, BUCKETS * SPILL_REGION, flags=mmap.MAP_PRIVATE)
        self.spills = array("I", bytes(4 * BUCKETS))
        self.extra: dict[int, bytearray] = {}
        self.overflowed = 0
        self.count = 0

    def add(self, url: str) -> bool:
        """Remember ``url``; ``False`` when it was already there (a duplicate).

        The body of :meth:`add_hash`, not a call to it: the writer calls this once per
        URL and a second call would cost as much as the work.
        """
        h = hash(url)
        b = h & BUCKET_MASK
        fp = ((h >> BUCKET_BITS) & FP_MASK).to_bytes(FP_BYTES, "little")
        start = b * self.region
        end = self.ends[b]
        if end - start < self.region:
            arena = self.arena
            i = arena.find(fp, start, end)
            if i >= 0 and (i % FP_BYTES == 0 or _find(arena, fp, i + 1, end) >= 0):
                return False
            arena[end : end + FP_BYTES] = fp
            self.ends[b] = end + FP_BYTES
            self.count += 1
            return True
        return self.add_full(b, fp)

    def add_hash(self, h: int) -> bool:
        """:meth:`add` for a ``hash()`` value already at hand (the validator hashes in bulk)."""
        b = h & BUCKET_MASK
        fp = ((h >> BUCKET_BITS) & FP_MASK).to_bytes(FP_BYTES, "little")
        start = b * self.region
        end = self.ends[b]
        if end - start < self.region:
            arena = self.arena
            i = arena.find(fp, start, end)
            if i >= 0 and (i % FP_BYTES == 0 or _find(arena, fp, i + 1, end) >= 0):
                return False
            arena[end : end + FP_BYTES] = fp
            self.ends[b] = end + FP_BYTES
            self.count += 1
            return True
        return self.add_full(b, fp)

    def add_full(self, b: int, fp: bytes) -> bool:
        """:meth:`add` for bucket ``b`` whose region is full: look in the region and overflow."""
        start = b * self.region
        if _find(self.arena, fp, start, start + self.region) >= 0:
            return False
        return self.add_spill(b, fp)

    def add_spill(self, b: int, fp: bytes) -> bool:
        """:meth:`add_full` once the full region is known not to hold ``fp``."""
        start = b * SPILL_REGION
        n = self.spills[b]
        if _find(self.spill, fp, start, start + n) >= 0:
            return False
        if n < SPILL_REGION:
            start += n
            self.spill[start : start + FP_BYTES] = fp
            self.spills[b] = n + FP_BYTES
        else:
            extra = self.extra.get(b)
            if extra is None:
                self.extra[b] = bytearray(fp)
            elif _find(extra, fp, 0, len(extra)) >= 0:
                return False
            else:
                extra += fp
        self.count += 1
        self.overflowed += 1
        if self.overflowed > self.count >> OVERFLOW_SHIFT:
            self._grow()
        return True

    def _grow(self) -> None:
        """Widen every region in place, then move the overflow back into the regions."""
        old = self.region
        slots = old // FP_BYTES
        # Double while the table is small (growth is cheap and the waste is a few MB),
        # then 1/8 at a time so the arena stays close to full at the sizes that matter.
        step = slots if len(self.arena) < DOUBLE_BELOW else max(1, slots >> GROWTH_SHIFT)
        new = (slots + step) * FP_BYTES
        arena, ends, spill, spills = self.arena, self.ends, self.spill, self.spills
        arena.resize(BUCKETS * new)
        for b in range(BUCKETS - 1, 0, -1):  # back to front: a move never hits unmoved data
            n = ends[b] - b * old
            if n:
                arena.move(b * new, b * old, n)
            ends[b] = b * new + n
        self.region = new
        extra, self.extra = self.extra, {}
        self.overflowed = 0
        for b in range(BUCKETS):
            k = spills[b]
            if not k:
                continue
            pending = spill[b * SPILL_REGION : b * SPILL_REGION + k] + extra.get(b, b"")
            end = ends[b]
            take = min(len(pending), (b + 1) * new - end)
            arena[end : end + take] = pending[:take]
            ends[b] = end + take
            rest = pending[take:]
            k = min(len(rest), SPILL_REGION)
            spill[b * SPILL_REGION : b * SPILL_REGION + k] = rest[:k]
            spills[b] = k
            if len(rest) > k:
                self.extra[b] = bytearray(rest[k:])
            self.overflowed += len(rest) // FP_BYTES

    def first_seen(self, urls: list[str]) -> tuple[list[str], int]:
        """The URLs of ``urls`` not seen before (now remembered), and how many were.

        The writer's bulk path (``build`` from a URL list): :meth:`add` for a run, with
        the common case inlined, because a call per URL costs as much as the work.
        """
        arena, ends, region = self.arena, self.ends, self.region
        find = arena.find
        fresh: list[str] = []
        keep = fresh.append
        added = 0
        for loc in urls:
            h = hash(loc)
            b = h & 0xFFFF  # BUCKET_MASK, BUCKET_BITS, FP_MASK and FP_BYTES spelled out
            fp = ((h >> 16) & 0xFF_FFFF_FFFF).to_bytes(5, "little")
            start = b * region
            end = ends[b]
            i = find(fp, start, end)
            if i >= 0 and (i % 5 == 0 or _find(arena, fp, i + 1, end) >= 0):
                continue
            if end - start < region:
                arena[end : end + 5] = fp
                ends[b] = end + 5
                added += 1
                keep(loc)
                continue
            self.count += added
            added = 0
            if self.add_spill(b, fp):  # may grow the regions
                keep(loc)
            region = self.region
        self.count += added
        return fresh, len(urls) - len(fresh)

    def add_new(self, hashes: list[int]) -> bool:
        """Add ``hashes`` (distinct ``hash()`` values) if none is there yet; else add none.

        Why all or nothing: the validator clears thousands of URLs at a time and falls
        back to the exact per-entry path when one is a duplicate, which must then find
        the set as it was.  The common case (not found, room in the region) is inlined
        and undone by moving the region ends back; fingerprints of full regions are
        added to the overflow once every hash is known to be new.
        """
        arena, ends, region = self.arena, self.ends, self.region
        find = arena.find
        done: list[int] = []
        mark = done.append
        later: list[tuple[int, bytes]] = []
        for h in hashes:
            b = h & 0xFFFF  # BUCKET_MASK, BUCKET_BITS, FP_MASK and FP_BYTES spelled out
            fp = ((h >> 16) & 0xFF_FFFF_FFFF).to_bytes(5, "little")
            start = b * region
            end = ends[b]
            i = find(fp, start, end)
            if i < 0 or (i % 5 and _find(arena, fp, i + 1, end) < 0):  # not in the region
                if end - start < region:
                    arena[end : end + 5] = fp
                    ends[b] = end + 5
                    mark(b)
                    continue
                if not self._in_overflow(b, fp):
                    later.append((b, fp))
                    continue
            for added in done:  # found: undo, the appended slots are past the ends again
                ends[added] -= FP_BYTES
            return False
        self.count += len(done)
        for b, fp in later:  # the regions may grow on the way: ask each time where it goes
            start = b * self.region
            end = ends[b]
            if end - start < self.region:
                arena[end : end + FP_BYTES] = fp
                ends[b] = end + FP_BYTES
                self.count += 1
            else:
                self.add_spill(b, fp)
        return True

    def _in_overflow(self, b: int, fp: bytes) -> bool:
        start = b * SPILL_REGION
        if _find(self.spill, fp, start, start + self.spills[b]) >= 0:
            return True
        extra = self.extra.get(b)
        return extra is not None and _find(extra, fp, 0, len(extra)) >= 0

    def contains_hash(self, h: int) -> bool:
        """Whether the ``hash()`` value ``h`` is in the set."""
        b = h & BUCKET_MASK
        fp = ((h >> BUCKET_BITS) & FP_MASK).to_bytes(FP_BYTES, "little")
        start = b * self.region
        end = self.ends[b]
        if _find(self.arena, fp, start, end) >= 0:
            return True
        if end - start < self.region:
            return False
        return self._in_overflow(b, fp)

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.contains_hash(hash(url))

    def __len__(self) -> int:
        return self.count


def _find(data: mmap.mmap | bytearray, fp: bytes, start: int, end: int) -> int:
    """Offset of ``fp`` at a slot boundary in ``data[start:end]``, or -1.

    ``start`` is a multiple of :data:`FP_BYTES`; a match straddling two
    slots (the tail of one fingerprint and the head of the next) is skipped.
    """
    i = data.find(fp, start, end)
    while i >= 0 and i % FP_BYTES:
        i = data.find(fp, i + 1, end)
    return i

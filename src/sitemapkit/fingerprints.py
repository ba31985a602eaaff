"""The ONE compact set of URL fingerprints: the writer's first-wins dedup and the validator's
duplicate check across a set both use :class:`SeenUrls`, with one meaning of ``add``
(``True``: new, ``False``: already there).

Why not a Python ``set``: a set of the URLs (or of their hashes) costs 50-100 bytes per
URL, about 1 GB at 10,000,000 URLs.  This is an open-addressing table (linear probing)
of 2**k slots of 8 bytes in ONE private anonymous ``mmap``, so a lookup or an insert is
one random memory access and a handful of integer operations in the interpreter.  The
writer's bulk loop (:meth:`SeenUrls.first_seen`) costs ~0.44 µs per URL where the
previous layout (65,536 buckets of 5-byte fingerprints searched with ``mmap.find``)
cost 0.71 µs, which was 60 % of ``sitemapkit build``'s time on a URL list.

Each used slot holds the URL's whole 64-bit ``hash()`` (signed, as ``hash`` gives it) with
its low byte replaced by 255 minus the probe distance, so a slot's value is one ``|``
away from the hash and never 0 (0 = empty).  The slot index minus the distance gives the
home slot, whose index holds the low ``k >= 8`` bits of the hash, so the table knows
every entry's full hash: it can grow (re-insert each entry into a larger table) and
two URLs are taken for one only if their full 64-bit hashes match (about n²/2⁶⁵
expected collisions: 1 in 700,000 at 10,000,000 URLs; the previous layout kept 56
bits, 1 in 1,400).  Python's ``hash(str)`` (SipHash, randomised per process) supplies
the bits; a set lives only as long as one writer or one validation, so the
randomisation is harmless.

Memory: the table grows when three quarters full, so it is 8 bytes per slot at a load
of 3/8 to 3/4: 10.7-21 bytes per URL (16.8 MB for 1,000,000 URLs when sized by
``SeenUrls(expected=...)``, as ``build`` does from the input's size; 134 MB at
10,000,000).  Growing hands the old table back chunk by chunk while it re-inserts
(``madvise``), so the peak stays near the new table's size, not old plus new
(measured: 147 MB peak RSS for 10,000,000 URLs added with no size hint; the previous
layout: 76 MB, and 15 % more CPU).  That memory was traded for speed because ``build``
of a URL list is dominated by this loop; ``--no-dedup`` turns the set off where memory
matters more.  A probe run never exceeds 254 slots (the distance byte): an entry whose
run would (never seen with real hashes at these loads) is kept in a small ``set``
beside the table.
"""

from __future__ import annotations

import mmap
from typing import Final

#: The smallest table: 2**MIN_BITS slots (64 KB).
MIN_BITS: Final = 13
#: Below 2**QUADRUPLE_BELOW slots the table grows fourfold, above it twofold.
QUADRUPLE_BELOW: Final = 20
#: Old-table slots re-inserted between two hand-backs of their memory (1 MB).
GROW_CHUNK: Final = 1 << 17
#: The low byte of a slot: 255 minus the probe distance.
DISTANCE: Final = 0xFF
#: What :meth:`SeenUrls._probe` returns for a hash already there.
FOUND: Final = -1
#: ... and for one kept in the spill set (its probe run was too long for the byte).
SPILLED: Final = -2


def _bits_for(expected: int) -> int:
    """Table size (log2) that holds ``expected`` entries at a load of at most 3/4."""
    return max(MIN_BITS, (expected * 4 // 3).bit_length())


class SeenUrls:
    """The ``hash()`` values of the URLs written (or validated) so far.

    ``expected`` sizes the table for about that many URLs (a hint: the table grows
    past it, at the cost of one pass per doubling).
    """

    __slots__ = ("count", "limit", "mask", "memory", "spill", "table")

    def __init__(self, expected: int = 0) -> None:
        self.count = 0
        #: Full hashes whose probe run passed 254 slots (the distance byte's range):
        #: never seen with real hashes at these loads, but a run cannot be allowed
        #: to grow the table without bound either.
        self.spill: set[int] = set()
        self._allocate(_bits_for(expected))

    def _allocate(self, bits: int) -> None:
        # A private anonymous map: its pages cost memory only once written, and the
        # pages of an old table can be handed back while it is re-inserted (_grow).
        self.memory = mmap.mmap(-1, 8 << bits, flags=mmap.MAP_PRIVATE)
        self.table = memoryview(self.memory).cast("q")
        self.mask = (1 << bits) - 1
        self.limit = (3 << bits) >> 2  # grow beyond three quarters full

    def add(self, url: str) -> bool:
        """Remember ``url``; ``False`` when it was already there (a duplicate)."""
        return self.add_hash(hash(url))

    def add_hash(self, h: int) -> bool:
        """:meth:`add` for a ``hash()`` value already at hand (the validator hashes in bulk)."""
        if self.count >= self.limit:
            self._grow()
        if self._probe(h) == FOUND:
            return False
        self.count += 1
        return True

    def _probe(self, h: int) -> int:
        """Insert ``h`` and return its slot; :data:`FOUND` if it was there already.

        :data:`SPILLED` when its probe run reached 255 slots, which the distance
        byte cannot say: then it is looked up and kept in :attr:`spill`.
        """
        slot, e = self._locate(h)
        if slot >= 0:
            self.table[slot] = e
            return slot
        if slot == FOUND:
            return FOUND
        if h in self.spill:
            return FOUND
        self.spill.add(h)
        return SPILLED

    def _locate(self, h: int) -> tuple[int, int]:
        """Where ``h`` would go (an empty slot and its entry), or ``FOUND``/``SPILLED``.

        ``SPILLED`` here means only that the run is too long: look in :attr:`spill`.
        """
        table, mask = self.table, self.mask
        i = h & mask
        e = h | DISTANCE
        while True:
            v = table[i]
            if not v:
                return i, e
            if v == e:
                return FOUND, e
            i = (i + 1) & mask
            e -= 1
            if not e & DISTANCE:
                return SPILLED, e

    def _grow(self) -> None:
        """Double the table and re-insert every entry from the hash its slot encodes."""
        old, old_memory, old_mask = self.table, self.memory, self.mask
        bits = old_mask.bit_length()
        # Each pass re-inserts every entry in the interpreter (~0.5 µs each): quadruple
        # while the table is small (at most 8 MB more than needed), then double.
        self._allocate(bits + (2 if bits < QUADRUPLE_BELOW else 1))
        spilled, self.spill = self.spill, set()
        # In slot order, an old slot's entry lands near the same place in the new table
        # (its home keeps its low bits), so handing back each chunk of the old table once
        # it is done keeps the peak near the new table's size, not old plus new.
        for start in range(0, old_mask + 1, GROW_CHUNK):
            self._reinsert(old[start : start + GROW_CHUNK], start, spilled)
            old_memory.madvise(mmap.MADV_DONTNEED, 8 * start, 8 * min(GROW_CHUNK, old_mask + 1))
        old.release()
        old_memory.close()
        for h in spilled:
            self._probe(h)

    def _reinsert(self, chunk: memoryview, start: int, spilled: set[int]) -> None:
        """Put the entries of old slots ``start...`` into the (new) table."""
        table, mask = self.table, self.mask
        for j, v in enumerate(chunk, start):
            if not v:
                continue
            h = (v & -256) | ((j - 255 + (v & 0xFF)) & 0xFF)  # the full hash, from its home
            i = h & mask
            e = h | 0xFF
            while table[i]:  # the entries are distinct: only an empty slot ends the run
                i = (i + 1) & mask
                e -= 1
                if not e & 0xFF:
                    spilled.add(h)
                    break
            else:
                table[i] = e

    def first_seen(self, urls: list[str]) -> tuple[list[str], int]:
        """The URLs of ``urls`` not seen before (now remembered), and how many were.

        The writer's bulk path (``build`` from a URL list): :meth:`add` for a run with
        the common case (an empty home slot) inlined, because a call per URL costs as
        much as the work.  Room for the whole run is made first, so nothing in the
        loop has to check the load.
        """
        while self.count + len(urls) > self.limit:
            self._grow()
        table, mask = self.table, self.mask
        fresh: list[str] = []
        keep = fresh.append
        for loc in urls:
            h = hash(loc)
            i = h & mask
            e = h | 0xFF  # DISTANCE, spelled out: a global costs here
            v = table[i]
            if not v:
                table[i] = e
                keep(loc)
                continue
            while v != e:
                i = (i + 1) & mask
                e -= 1
                if not e & 0xFF:  # a run past the distance byte: _probe spills it
                    if self._probe(h) != FOUND:
                        keep(loc)
                    break
                v = table[i]
                if not v:
                    table[i] = e
                    keep(loc)
                    break
        self.count += len(fresh)
        return fresh, len(urls) - len(fresh)

    def add_new(self, hashes: list[int]) -> bool:
        """Add ``hashes`` (distinct ``hash()`` values) if none is there yet; else add none.

        Why all or nothing: the validator clears thousands of URLs at a time and falls
        back to the exact per-entry path when one is a duplicate, which must then find
        the set as it was.  Emptying the slots filled so far, last first, restores it
        exactly: linear probing never moves an entry, and no earlier entry's probe run
        went through a slot that was empty when it was inserted.
        """
        while self.count + len(hashes) > self.limit:
            self._grow()
        filled: list[int] = []
        for n, h in enumerate(hashes):
            slot = self._probe(h)
            if slot == FOUND:
                for i, x in zip(reversed(filled), reversed(hashes[:n]), strict=True):
                    if i == SPILLED:
                        self.spill.discard(x)
                    else:
                        self.table[i] = 0
                return False
            filled.append(slot)
        self.count += len(filled)
        return True

    def contains_hash(self, h: int) -> bool:
        """Whether the ``hash()`` value ``h`` is in the set."""
        slot = self._locate(h)[0]
        return slot == FOUND or (slot == SPILLED and h in self.spill)

    def __contains__(self, url: object) -> bool:
        return isinstance(url, str) and self.contains_hash(hash(url))

    def __len__(self) -> int:
        return self.count

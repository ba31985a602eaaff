"""Exit codes shared by every command (httpie's ExitStatus manners)."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    OK = 0
    #: findings with errors, bad input lines, or the start URL failed
    ERROR = 1
    #: a usage error or an input that cannot be read at all
    USAGE = 2
    #: Ctrl-C (SIGINT); work so far is saved
    INTERRUPTED = 130
    #: stdout closed by its reader (``| head -1``): 128 + SIGPIPE, what a shell reports for
    #: ``seq 1000000 | head -1``; nothing more is printed, no traceback
    PIPE_CLOSED = 141
    #: SIGTERM (128 + 15); work so far is saved, as for Ctrl-C
    TERMINATED = 143

"""One understanding of an action, shared by every kind: what it does to what.

Readers turn an action into what it does, whatever its surface (the shell parser in
:mod:`specialists.shellparse` sees through ``sh -c``, ``eval``, variables, base64, heredocs and
inline Python); this package says what the things it touches are (:mod:`.paths`), so that
kinds judge effects, not spellings.
"""

from __future__ import annotations

from specialists.understand.diffs import diff_paths
from specialists.understand.paths import PathClass, PathClassName, Where, classify, describe

__all__ = ["PathClass", "PathClassName", "Where", "classify", "describe", "diff_paths"]

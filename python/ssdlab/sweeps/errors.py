"""Layer: Python, sweeps. One job: the sweep engine's own error and warning.

- `DirectoryRefused` (an `SsdlabIOError`): the results directory cannot be used as asked: another
  sweep holds it, it holds another grid's results, or a table or record of another schema or
  tool. Nothing was run; `ssdlab sweep` exits with status 3 for it.
- `SweepWarning`: something in the results directory was not used as it was, and the sweep went
  on without it: a damaged record set aside (its cell runs again), a grid replaced, a wait for
  another sweep. `ssdlab sweep` prints each as `warning: ...`.
"""

from __future__ import annotations

from ssdlab.errors import SsdlabIOError


class DirectoryRefused(SsdlabIOError):
    """The results directory was refused (`.path` names the file or directory concerned)."""


class SweepWarning(UserWarning):
    """A results directory's content was set aside, replaced, or waited for."""

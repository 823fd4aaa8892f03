"""One line about the machine a measurement ran on, printed beside the figures it qualifies
(``arena ladder``'s move times, ``arena bench``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def machine() -> str:
    """One line about the machine: CPU model, cores, Python, OS."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    uname = os.uname()
    load = ", load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()) if hasattr(os, "getloadavg") else ""
    return f"{model}, {os.cpu_count()} cores, {uname.sysname} {uname.release}, Python {sys.version.split()[0]}{load}"

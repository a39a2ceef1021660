"""Whether a skill can work here: its platforms include this OS, its binaries are on PATH, its
environment variables are set. Unavailable skills stay listed, marked with what is missing, so an
agent can tell the user what to install instead of silently lacking the skill."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping

from .frontmatter import normalise_platform
from .model import Requirements

# kenning itself is there whenever this code runs, whatever PATH says (a client started from a
# desktop does not see the virtual environment's bin folder); the built-in skills require it
SELF = "kenning"


def this_platform() -> str:
    return normalise_platform(sys.platform if not sys.platform.startswith("linux") else "linux")


def missing(requires: Requirements, environ: Mapping[str, str] | None = None) -> list[str]:
    """What is missing, as short strings: "platform:macos", "bin:docker", "any-bin:python3|python",
    "env:GITHUB_TOKEN"; empty when the skill can be used."""
    env = os.environ if environ is None else environ
    path = env.get("PATH", os.defpath)
    out: list[str] = []
    if requires.platforms and this_platform() not in requires.platforms:
        out.append("platform:" + "|".join(requires.platforms))
    out += [f"bin:{b}" for b in requires.bins if b != SELF and shutil.which(b, path=path) is None]
    if requires.any_bins and not any(shutil.which(b, path=path) for b in requires.any_bins):
        out.append("any-bin:" + "|".join(requires.any_bins))
    out += [f"env:{v}" for v in requires.env if not env.get(v)]
    return out

"""Installing skills from elsewhere, with quarantine, scan, trust policy and a lock file.

    fetch      SOURCE (folder, .zip / .skill archive, git URL or local repository, @ref, #subdir)
    unpack     entries listed, names checked, one skill copied into quarantine with every limit
    lock       skills.lock beside each skills root: what was installed, from where, its hash
    installer  ``Installer``: prepare / apply (install), verify, prepare_update / apply_update, uninstall

    from kenning.skills.install import Installer
    installer = Installer(kb.skills, home=kb.home, trusted=kb.settings.skill_trusted,
                          cache_dir=kb.settings.cache_dir)
    installer.install("https://github.com/acme/skills#skills/pdf", target="project")
    [d.to_dict() for d in installer.verify() if d.status != "ok"]
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fetch import SourceSpec, parse_source
    from .installer import Candidate, Drift, Installed, Installer, Plan, Update
    from .lock import LockEntry, lock_path, read_lock

# imported on first use: ``kenning.skills.trust`` reads locks without loading the installer
_EXPORTS = {
    "Installer": "installer", "Plan": "installer", "Candidate": "installer", "Installed": "installer",
    "Drift": "installer", "Update": "installer", "SourceSpec": "fetch", "parse_source": "fetch",
    "LockEntry": "lock", "lock_path": "lock", "read_lock": "lock",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kenning.skills.install' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["Installer", "Plan", "Candidate", "Installed", "Drift", "Update", "SourceSpec", "parse_source",
           "LockEntry", "lock_path", "read_lock"]

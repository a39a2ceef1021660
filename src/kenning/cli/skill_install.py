"""Installing skills from elsewhere: ``kenning skill install|verify|update|uninstall`` (see kenning.skills.install)."""

from __future__ import annotations

import click

SKILL_COMMANDS: tuple[click.Command, ...] = ()

"""The curator: ``kenning skill curate`` (see kenning.skills.curate)."""

from __future__ import annotations

import click

SKILL_COMMANDS: tuple[click.Command, ...] = ()

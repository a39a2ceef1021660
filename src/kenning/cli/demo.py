"""``kenning demo``: a short tour in a throwaway data directory, through the public API only.

It stores facts, lessons and entities in English and Chinese, then shows recall by paraphrase and
across languages, supersede with history, expiry (of a fact whose password the write gate masked
before storing it), a forgetting dry run, lesson lookup, and entity lookup by alias and full-width name.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console

from . import output

from kenning.models import Fact

if TYPE_CHECKING:
    from kenning.api import Kenning

FACTS = (
    ("boss", "老板偏好简短的更新汇报", "user_pref", False),
    ("nginx", "nginx proxy_read_timeout defaults to 60s", "pitfall", False),
    ("friday", "never deploy on Friday afternoon", None, False),
    ("staging", "The staging database runs on db-staging-01", "project", False),
    ("weekly", "周报每周五下午五点前发给张伟", "project", True),
)
RECALLS = (
    ("他喜欢什么样的汇报", "paraphrase, Chinese"),
    ("what kind of report does the boss like", "across languages"),
    ("websocket drops after a minute", "symptom, not the words"),
)
TRIVIAL = "The coffee machine on floor 3 was descaled"
WIFI_PASSWORD = "tulip-42"  # never reaches the disk: the gate stores [REDACTED:password]
WIFI = f"The guest wifi password this week is {WIFI_PASSWORD}"


@dataclass
class Tour:
    kb: Kenning
    out: Console
    facts: dict[str, Fact] = field(default_factory=dict)

    def run(self) -> None:
        for step in (self.store, self.recall, self.supersede, self.expiry, self.forgetting, self.lessons,
                     self.entities):
            step()

    def heading(self, text: str) -> None:
        self.out.print()
        self.out.rule(f"[bold]{text}", align="left")

    def store(self) -> None:
        self.heading("1. Storing facts, lessons and entities")
        for key, text, category, pinned in FACTS:
            self.facts[key] = self.kb.remember(text, category=category, pinned=pinned, source="demo")
        self.out.print(output.facts_table(list(self.facts.values()), "Facts"))
        kb = self.kb
        lessons = [
            kb.lessons.record("raised proxy_read_timeout to 3600s", "websocket connections dropping behind nginx",
                              "positive", "long-lived websockets need proxy_read_timeout above their idle time"),
            kb.lessons.record("周五下午发布了新版本", "生产环境发布", "negative", "周五下午不要上线，改到周一上午"),
        ]
        self.out.print(output.lessons_table(lessons, "Lessons"))
        entities = [
            kb.entities.upsert("Zhang Wei", kind="person", aliases=["张伟", "老板"],
                               attributes={"role": "manager"}),
            kb.entities.upsert("nginx-gateway", kind="service", aliases=["网关"], attributes={"host": "gw-01"}),
        ]
        self.out.print(output.entities_table(entities, "Entities"))

    def recall(self) -> None:
        self.heading("2. Recall by meaning, in either language")
        for query, note in RECALLS:
            hits = self.kb.recall(query, k=3, kinds="fact")
            self.out.print(output.hits_table(hits, f"recall --kind fact {query!r}  ({note})"))

    def supersede(self) -> None:
        self.heading("3. Supersede: facts change, history stays")
        old = self.facts["staging"]
        new = self.kb.supersede(old.id, "The staging database moved to db-staging-02", reason="migration")
        self.facts["staging (new)"] = new
        chain = self.kb.history(new.id)
        self.out.print(output.facts_table(chain, f"history {new.id} (oldest first)", output.HISTORY_COLUMNS))
        hits = self.kb.recall("which host runs the staging database", k=1, kinds="fact")
        self.out.print(output.hits_table(hits, "recall 'which host runs the staging database' (current version only)"))

    def expiry(self) -> None:
        self.heading("4. Expiry: a fact whose time has passed leaves recall")
        wifi = self.kb.remember(WIFI, expires_at="7d", source="demo")
        self.facts["wifi"] = wifi
        self.out.print(output.facts_table([wifi], "remember, expires in 7 days (the write gate masked the password)"))
        query = "guest wifi password"
        rows = [("before expiry", self._finds(query, wifi.id, False))]
        self.kb.expire(wifi.id, reason="password rotated")
        rows.append(("after expire (expires_at = now)", self._finds(query, wifi.id, False)))
        rows.append(("after expire, include_expired=True", self._finds(query, wifi.id, True)))
        self.out.print(output.table(f"recall {query!r}", ("when", "wifi fact found"), rows))

    def _finds(self, query: str, item_id: str, include_expired: bool) -> str:
        hits = self.kb.recall(query, k=3, include_expired=include_expired)
        return "yes" if any(h.item.id == item_id for h in hits) else "no"

    def forgetting(self) -> None:
        self.heading("5. Forgetting: stale trivia goes, important facts stay")
        self.facts["trivial"] = self.kb.remember(TRIVIAL, source="demo")
        # days=0 counts every fact as idle, so the dry run shows which rule keeps each one:
        # recalled more than once, pinned, part of a history, or important (0.7 and up)
        gone = {f.id for f in self.kb.forget_stale(days=0, max_access=1, dry_run=True)}
        rows = []
        for fact in self.facts.values():
            now = self.kb.get(fact.id)
            assert isinstance(now, Fact)
            rows.append((now.id, output.truncate(now.content, 50), f"{now.importance:.2f}", now.access_count,
                         _verdict(now, now.id in gone)))
        title = "forget_stale(days=0, max_access=1, dry_run=True)"
        self.out.print(output.table(title, ("id", "content", "importance", "recalled", "verdict"), rows))

    def lessons(self) -> None:
        self.heading("6. Lessons by context and outcome")
        found = self.kb.lessons.find(context="WebSocket")
        self.out.print(output.lessons_table(found, "lesson find --context WebSocket"))
        found = self.kb.lessons.find(outcome="negative")
        self.out.print(output.lessons_table(found, "lesson find --outcome negative"))

    def entities(self) -> None:
        self.heading("7. Entities by alias and full-width name")
        rows = []
        for name in ("张伟", "ＺＨＡＮＧ ＷＥＩ", "老板", "网关"):
            found = self.kb.entities.get(name)
            rows.append((name, found.name, found.entity_kind, found.aliases))
        self.out.print(output.table("entity get", ("asked for", "found", "kind", "aliases"), rows))


def _verdict(fact: Fact, goes: bool) -> str:
    """Which of forget_stale's rules decides this fact's fate."""
    from kenning.memory import HIGH_IMPORTANCE

    if goes:
        return "would go (expired)" if output.fact_status(fact) == "expired" else "would go (idle, trivial)"
    if fact.pinned:
        return "kept: pinned"
    if fact.importance >= HIGH_IMPORTANCE:
        return f"kept: importance {fact.importance:.2f}"
    if fact.supersedes or fact.superseded_by:
        return "kept: has history"
    return f"kept: recalled {fact.access_count} times"


@click.command()
@click.option("--keep", is_flag=True, help="Keep the demo's data directory and print where it is.")
def demo(keep: bool) -> None:
    """Tour kenning in a throwaway data directory.

    Takes a few seconds; the directory is deleted at the end unless --keep is given.

    \b
    Example:
      kenning demo --keep
    """
    from kenning.api import Kenning  # the model loads only when the demo runs

    home = Path(tempfile.mkdtemp(prefix="kenning-demo-"))
    out = output.console()
    try:
        with Kenning.open(home, actor="demo") as kb:
            Tour(kb, out).run()
    finally:
        if keep:
            out.print(f"\nThe demo data is kept in {home}\nTry: kenning --home {home} recall '汇报'", markup=False)
        else:
            shutil.rmtree(home, ignore_errors=True)


COMMANDS = (demo,)

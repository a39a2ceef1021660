"""The MCP tools: one table of names, descriptions, argument schemas and thin functions over ``Kenning``.

Each tool is a function registered with ``@tool(name, title, description, *params, hints)``. Its
description says *when* to call it (models follow events they are told about). Its ``Param``s
(``arguments``) give the schema, the names models tend to guess (``q`` / ``text`` for ``query``,
``skill`` for ``name``, …) and the coercion done once, at the edge, before the function runs; it
then calls the library and answers with a JSON object. The library validates the rest, and its
errors (``KenningError``) become tool errors in one place, in the server.

Every memory tool (facts, lessons, entities, notes, hot memory, context, consolidation) acts in
exactly one scope: its ``scope`` argument when given, else the server's (``Caller.scope``, from
``kenning mcp --scope``). That holds for reads, writes and the tools that change an item by id
(supersede, forget, pin): an id of another scope is not found there. The server's scope is a
default, not a wall: a client may name another scope in the argument (one server serves one
person's memory; isolation between people is one data directory each). Skills have no scope.

Skills written from an MCP client are drafts unless ``[mcp] direct_skill_writes = true``: create,
edit and patch save the whole new SKILL.md with ``kb.drafts.save_text``, invisible to list, search
and the catalog until a person runs ``kenning skill review approve NAME``; delete, write_file and
remove_file are refused.

This module imports nothing from the MCP SDK, and nothing heavy at import (the skills package, numpy):
``kenning mcp`` lists the tools from this table before anything else has loaded (``front``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..models import DEFAULT_SCOPE
from ..retrieval.relevance import DEFAULT_MIN_RELEVANCE
from ..skills.relevance import DEFAULT_SKILL_MIN_RELEVANCE
from ..skills.model import MAX_FILE_BYTES, SKILL_MD_MAX_CHARS
from .arguments import SHORT, Args, Param, parse_arguments

if TYPE_CHECKING:
    from ..api import Kenning
    from ..llm import LLM
    from ..skills.scan import ScanReport


@dataclass(frozen=True)
class Caller:
    """What a tool needs beyond its arguments: the open store, the server's scope and who is calling."""

    kb: Kenning
    scope: str = DEFAULT_SCOPE  # what every scope argument defaults to (kenning mcp --scope)
    client: str = "client"  # the MCP client's name, kept as provenance ("mcp:<client>")
    client_model: LLM | None = None  # the client's own model through sampling, when it lends one

    @property
    def origin(self) -> str:
        return f"mcp:{self.client}"


Handler = Callable[[Caller, Args], dict[str, Any]]
SKILL_MD_LIMIT = SKILL_MD_MAX_CHARS  # the library's limits: skills.model is light (no yaml, no numpy)
SKILL_FILE_LIMIT = MAX_FILE_BYTES


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    run: Handler
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

    def input_schema(self, scope: str = DEFAULT_SCOPE) -> dict[str, Any]:
        """The JSON schema, with the server's ``scope`` as the scope argument's default."""
        # No "additionalProperties": false, so that clients validating before sending let aliases through.
        # No anyOf / oneOf / allOf / if at the top either: the Anthropic and OpenAI APIs refuse a tool
        # schema with one, and Claude Code drops the tool (arguments that go together are said in prose).
        return {"type": "object",
                "properties": {p.name: p.schema(scope if p.name == "scope" else None) for p in self.params},
                "required": [p.name for p in self.params if p.required]}

    def listing(self, scope: str = DEFAULT_SCOPE) -> dict[str, Any]:
        """The tool as ``tools/list`` shows it (JSON, the protocol's names): schema, title and hints."""
        hints = {"title": self.title, "readOnlyHint": self.read_only,
                 "destructiveHint": self.destructive and not self.read_only,
                 "idempotentHint": self.idempotent or self.read_only, "openWorldHint": False}
        return {"name": self.name, "title": self.title, "description": self.description,
                "inputSchema": self.input_schema(scope), "annotations": hints}


TOOLS: dict[str, ToolSpec] = {}


def tool(name: str, title: str, description: str, *params: Param, read_only: bool = False,
         destructive: bool = False, idempotent: bool = False) -> Callable[[Handler], Handler]:
    names = [n for p in params for n in (p.name, *p.aliases)]
    if len(names) != len(set(names)):  # one would silently shadow the other
        raise ValueError(f"tool {name}: an argument name or alias is used twice in {names}")

    def register(fn: Handler) -> Handler:
        TOOLS[name] = ToolSpec(name, title, " ".join(description.split()), params, fn, read_only, destructive,
                               idempotent)
        return fn

    return register


def run_tool(name: str, arguments: Mapping[str, Any] | None, caller: Caller) -> dict[str, Any]:
    """Call tool ``name``; raises ``KenningError`` (bad arguments, unknown tool, the library's refusals)."""
    spec = TOOLS.get(name)
    if spec is None:
        raise NotFound(f"there is no tool {name!r}; the tools are {', '.join(TOOLS)}")
    return spec.run(caller, parse_arguments(name, spec.params, arguments or {}, defaults={"scope": caller.scope}))


# -- shared parameters ------------------------------------------------------------------------------

SCOPE = Param("scope", "text", "Memory scope, e.g. 'user:alice' or 'project:web'; omit it for the scope this "
              "server was started with (its default here).", aliases=("namespace",), limit=SHORT)
ID_SCOPE = replace(SCOPE, help="The scope the item is in; omit it for the server's scope (its default here). An "
                               "item of another scope is not found.")
SCOPED_ID = ("Only an item of the scope (the server's unless you pass scope) is changed: an id of another scope is "
             "not found.")
QUERY_ALIASES = ("q", "text", "task", "question", "search")  # what models call the query of a search
SKILL_NAME = Param("name", "text", "The skill's name, e.g. 'docker-deploy' (or 'project:docker-deploy').",
                   required=True, aliases=("skill", "skill_name"), limit=SHORT)
ITEM_ID = Param("id", "text", "The item's id, e.g. 'f_1a2b3c4d5e6f', as recall shows it.", required=True,
                aliases=("item_id", "fact_id", "memory_id", "old_id"), limit=SHORT)
TAGS = Param("tags", "texts", "Tags, e.g. ['nginx', 'prod'].", aliases=("tag",))
REASON = Param("reason", "text", "Why (kept in the audit log).", default="", limit=2_000)
K = Param("k", "int", "How many results.", default=10, low=1, high=100, aliases=("limit", "top_k", "n"))
# one message of a conversation, as kenning.consolidate.messages takes it (ROLES, MAX_MESSAGE_CHARS)
MESSAGE = {"type": "object", "required": ["role", "content"],
           "properties": {"role": {"type": "string", "enum": ["user", "assistant", "system", "tool"]},
                          "content": {"type": "string", "maxLength": 100_000},
                          "at": {"type": "string", "description": "When it was said, ISO 8601 (optional)."}}}


# -- skills -----------------------------------------------------------------------------------------


@tool("skills_list", "List skills", """List every available skill by name and description (never the
      bodies). Call when you need an overview of the skills; to find the skill for a task, prefer
      skills_search.""",
      Param("category", "text", "Only this category, e.g. 'devops'.", limit=SHORT), read_only=True)
def skills_list(c: Caller, a: Args) -> dict[str, Any]:
    return c.kb.skills.skills_list(a["category"])


@tool("skill_view", "Read a skill", """Read a skill's instructions (SKILL.md) and the list of its
      linked files, or one linked file with file_path. Call before doing a task a skill covers, and
      follow what it says.""",
      SKILL_NAME, Param("file_path", "text", "A linked file, e.g. 'references/api.md'; omit for SKILL.md.",
                        aliases=("file", "path"), limit=1_000), read_only=True)
def skill_view(c: Caller, a: Args) -> dict[str, Any]:
    return c.kb.skills.skill_view(a["name"], a["file_path"])


@tool("skills_search", "Find skills for a task", """Find the skills that fit a task, by words and
      meaning (any language). Call at the start of any multi-step task, before working it out from
      scratch; then skill_view the best match.""",
      Param("task", "text", "The task in a sentence.", required=True, aliases=("query", "q", "text", "question")),
      Param("k", "int", "How many skills.", default=5, low=1, high=100, aliases=("limit", "top_k", "n")),
      Param("min_relevance", "number", "Leave out skills less likely to fit than this (0-1; 0 keeps all k). "
            "A task no skill fits gets none.", default=DEFAULT_SKILL_MIN_RELEVANCE, low=0, high=1,
            aliases=("threshold", "min_score")),
      read_only=True)
def skills_search(c: Caller, a: Args) -> dict[str, Any]:
    return c.kb.skills.skills_search(a["task"], a["k"], min_relevance=a["min_relevance"])


@tool("skill_feedback", "Report how a skill worked", """Report how a skill worked out: helped, failed
      or not-relevant, with a note. Call after you finished a task you used a skill for, especially
      when it failed or was wrong, so it can be fixed.""",
      SKILL_NAME, Param("outcome", "text", "How it went.", required=True, choices=("helped", "failed", "not-relevant"),
                        aliases=("result", "status")),
      Param("note", "text", "What happened, e.g. which step was wrong.", default="", aliases=("comment", "notes")))
def skill_feedback(c: Caller, a: Args) -> dict[str, Any]:
    return c.kb.skills.skill_feedback(a["name"], a["outcome"], a["note"])


@tool("skill_manage", "Create or change a skill", """Create or change a skill. Call after you solved a
      multi-step task that will come back (create), or when a skill you followed was wrong or out of
      date (patch a passage, or edit the whole SKILL.md). From MCP, create / edit / patch are saved as
      drafts that a person approves (kenning skill review approve NAME): the answer says when a skill
      is only a draft, so do not assume it is live. delete, write_file and remove_file need
      [mcp] direct_skill_writes = true.""",
      Param("action", "text", "What to do.", required=True,
            choices=("create", "edit", "patch", "delete", "write_file", "remove_file")),
      SKILL_NAME,
      Param("content", "text", "create / edit: the whole SKILL.md: YAML front matter with name and description, "
            "then the instructions.", aliases=("skill_md", "body", "text"), limit=SKILL_MD_LIMIT),
      Param("old_string", "text", "patch: the passage to replace, copied from the skill.", aliases=("old",),
            limit=SKILL_MD_LIMIT),
      Param("new_string", "text", "patch: what to put instead.", aliases=("new",), limit=SKILL_MD_LIMIT),
      Param("replace_all", "bool", "patch: replace every exact occurrence.", default=False),
      Param("file_path", "text", "patch / write_file / remove_file: a linked file such as 'references/api.md'.",
            aliases=("file", "path"), limit=1_000),
      Param("file_content", "text", "write_file: the file's text.", limit=SKILL_FILE_LIMIT),
      Param("category", "text", "create: folder to put it in, e.g. 'devops'.", limit=SHORT),
      Param("target", "text", "create: your own skills or the project's.", default="user",
            choices=("user", "project")),
      Param("force", "bool", "create even if a skill with a close meaning exists.", default=False),
      REASON, destructive=True)
def skill_manage(c: Caller, a: Args) -> dict[str, Any]:
    skills = c.kb.skills
    if c.kb.settings.mcp.direct_skill_writes:
        return skills.skill_manage(a["action"], a["name"], content=a["content"], old_string=a["old_string"],
                                   new_string=a["new_string"], replace_all=a["replace_all"],
                                   file_path=a["file_path"], file_content=a["file_content"],
                                   category=a["category"], target=a["target"], force=a["force"], reason=a["reason"])
    return _skill_draft(c, a)


def _skill_draft(c: Caller, a: Args) -> dict[str, Any]:
    """create / edit / patch as a draft awaiting a person's approval; the other actions refused."""
    from ..skills.files import MAX_FILE_BYTES, read_limited
    from ..skills.frontmatter import check_name, validate_skill_md
    from ..skills.patch import apply_patch

    action, kb = a["action"], c.kb
    base: str | None = None  # the SKILL.md an edit is made from: approving it over a later hand edit is refused
    if action not in ("create", "edit", "patch"):
        raise Forbidden(f"skill_manage {action} is not allowed from MCP clients: skills change only through drafts a "
                        f"person approves. Set [mcp] direct_skill_writes = true in {kb.settings.config_path} to "
                        "allow it, or ask the user to run `kenning skill "
                        f"{action.replace('_', '-')} {a['name']}` themselves")
    if action == "create":
        name = check_name(a["name"])
        _exists_not(c, name)
        content = _needs(a, "content", "create")
        validate_skill_md(content, name)  # refused now, while the model can still fix it
    else:
        skill = kb.skills.get(a["name"])
        name = skill.name
        if not any(s.root == skill.root and s.writable for s in kb.skills.sources):
            raise Forbidden(f"skill {name!r} is in the read-only {skill.source} source; create your own copy "
                            "with skill_manage create under another name")
        base = read_limited(skill.skill_md, "SKILL.md", MAX_FILE_BYTES).decode("utf-8", errors="replace")
        if action == "edit":
            content = _needs(a, "content", "edit")
        else:
            if a["file_path"] not in (None, "SKILL.md"):
                raise Forbidden("patching a skill's linked files is not allowed from MCP clients (a draft holds "
                                f"SKILL.md only); set [mcp] direct_skill_writes = true in {kb.settings.config_path}")
            content = apply_patch(base, _needs(a, "old_string", "patch"), _needs(a, "new_string", "patch"),
                                  replace_all=a["replace_all"]).text
        validate_skill_md(content, skill.path.name)
    draft = kb.drafts.save_text(name, content, origin=c.origin, action="create" if action == "create" else "edit",
                                base=base)
    out = {"success": True, "action": action, "name": name, "status": "draft", "live": False,
           "draft": {k: v for k, v in draft.to_dict().items() if k != "scan"}, "verdict": draft.verdict,
           "message": f"saved as draft {draft.name!r}, awaiting a person's approval: skill {name!r} is NOT "
                      f"{'created' if action == 'create' else 'changed'} yet and skills_list, skills_search and "
                      f"skill_view do not show the draft. A person reviews it (`kenning skill review show "
                      f"{draft.name}`) and approves it (`kenning skill review approve {draft.name}`) or rejects it."}
    if draft.scan is not None and draft.verdict != "safe":
        out.update(_scan_advice(draft.name, draft.scan))
    if action == "create" and (a["category"] or a["target"] != "user"):
        out["note"] = "a draft is approved into the user's skills; category and target are not kept with it"
    return out


def _scan_advice(draft: str, scan: ScanReport) -> dict[str, Any]:
    """The draft's top findings and what the agent can do about them, while it still can."""
    from ..consolidate.drafts import TOP_FINDINGS, findings_text

    counts = ", ".join(f"{n} {s}" for s, n in scan.counts().items() if n)
    fate = ("a dangerous draft is never approved" if scan.verdict == "dangerous"
            else "a person sees these findings and must accept them to approve it")
    return {"findings": [f.to_dict() for f in scan.findings[:TOP_FINDINGS]], "counts": scan.counts(),
            "scan": f"the skill scanner found draft {draft!r} {scan.verdict} ({counts}): "
                    f"{findings_text(scan.findings)}. {fate}: if that text is not needed, call skill_manage again "
                    "with it taken out (that saves a new draft; tell the user this one can be rejected)"}


def _exists_not(c: Caller, name: str) -> None:
    try:
        found = c.kb.skills.get(name)
    except NotFound:
        return
    raise Conflict(f"skill {name!r} already exists ({found.source}: {found.path}); change it with "
                   "skill_manage edit or patch, or choose another name")


def _needs(a: Args, key: str, action: str) -> str:
    if a[key] is None:
        raise InvalidInput(f"skill_manage {action} needs {key}")
    return str(a[key])


# -- facts ------------------------------------------------------------------------------------------


@tool("memory_remember", "Remember a fact", """Store a fact that should outlive this conversation. Call
      when the user states a durable preference or fact (about themselves, the project, the
      environment), or you learn one the hard way (a pitfall). One self-contained statement per call;
      the same statement again reinforces it instead of copying it. Never store secrets.""",
      Param("content", "text", "The fact, one self-contained statement.", required=True,
            aliases=("text", "fact", "memory", "statement")),
      TAGS,
      Param("category", "text", "What kind of fact.", choices=("user_pref", "project", "pitfall", "general")),
      Param("importance", "number", "0-1; 0.7 or more is never forgotten automatically.", low=0, high=1),
      Param("confidence", "number", "How sure, 0-1.", low=0, high=1),
      Param("expires_at", "text", "When it stops being true: a date, or a duration from now such as '30d'.",
            aliases=("expires", "expiry"), limit=SHORT),
      Param("pinned", "bool", "Never forget it automatically.", default=False, aliases=("pin",)),
      SCOPE)
def memory_remember(c: Caller, a: Args) -> dict[str, Any]:
    fact = c.kb.remember(a["content"], tags=a["tags"], scope=a["scope"], category=a["category"],
                         confidence=a["confidence"], importance=a["importance"], expires_at=a["expires_at"],
                         source=c.origin, pinned=a["pinned"])
    return {"success": True, "fact": fact.to_dict(), "message": f"remembered as {fact.id}"}


@tool("memory_recall", "Recall memories", """Search stored facts, lessons and entities by words and
      meaning (English and Chinese, across languages). Call before answering anything that depends
      on the user's preferences, earlier decisions or the project's history, and before asking the
      user something they may have told you already.""",
      Param("query", "text", "What to look for, in a sentence.", required=True, aliases=QUERY_ALIASES),
      K,
      Param("kinds", "texts", "Only these kinds.", choices=("fact", "lesson", "entity"), aliases=("kind", "types")),
      TAGS,
      Param("min_confidence", "number", "Only items at least this sure (0-1).", low=0, high=1),
      Param("since", "text", "Created at or after: a date, or a duration ago such as '7d'.", limit=SHORT),
      Param("until", "text", "Created at or before: a date, or a duration ago.", limit=SHORT),
      Param("include_superseded", "bool", "Also old versions of changed facts.", default=False),
      Param("include_expired", "bool", "Also facts whose expiry has passed.", default=False),
      Param("min_relevance", "number", "Leave out hits less likely relevant than this (0-1; 0 keeps all k). "
            "Each hit's relevance is on the same scale in every query.", default=DEFAULT_MIN_RELEVANCE,
            low=0, high=1, aliases=("threshold", "min_score")),
      SCOPE, read_only=True)
def memory_recall(c: Caller, a: Args) -> dict[str, Any]:
    hits = c.kb.recall(a["query"], a["k"], scope=a["scope"], kinds=a["kinds"], tags=a["tags"],
                       min_confidence=a["min_confidence"], since=a["since"], until=a["until"],
                       include_superseded=a["include_superseded"], include_expired=a["include_expired"],
                       min_relevance=a["min_relevance"])
    answer = {"success": True, "query": a["query"], "count": len(hits), "hits": [h.to_dict() for h in hits]}
    if not hits:
        answer["message"] = hits.empty_reason()
    return answer


@tool("memory_supersede", "Replace a fact", """Replace a stored fact by its new version, keeping the
      history. Call when the user corrects something you remembered, or a fact has changed (a moved
      server, a new preference); the old version leaves recall. """ + SCOPED_ID,
      ITEM_ID,
      Param("content", "text", "The new version of the fact.", required=True,
            aliases=("new_content", "text", "new_text", "fact")),
      REASON, ID_SCOPE)
def memory_supersede(c: Caller, a: Args) -> dict[str, Any]:
    fact = c.kb.supersede(a["id"], a["content"], reason=a["reason"], scope=a["scope"])
    return {"success": True, "fact": fact.to_dict(), "replaced": a["id"],
            "message": f"{a['id']} superseded by {fact.id}"}


@tool("memory_forget", "Forget memories", """Delete one stored item for good (by id), or with
      stale=true the facts nobody recalls any more (idle for `days`, recalled at most `max_access`
      times; pinned, important and lesson items are kept). Call when the user asks you to forget
      something; use dry_run first for stale facts. Only the scope's items are forgotten (the server's
      scope unless you pass scope): an id of another scope is not found.""",
      Param("id", "text", "The item to delete, e.g. 'f_1a2b3c4d5e6f'. Give either id or stale=true.",
            aliases=ITEM_ID.aliases, limit=SHORT),
      Param("stale", "bool", "Forget stale facts instead of one item. Give either id or stale=true.", default=False),
      Param("days", "number", "stale: idle for more than this many days.", default=90, low=0),
      Param("max_access", "int", "stale: recalled at most this many times.", default=1, low=0),
      Param("dry_run", "bool", "stale: only list what would be forgotten.", default=False),
      REASON, ID_SCOPE, destructive=True)
def memory_forget(c: Caller, a: Args) -> dict[str, Any]:
    if a["id"] and a["stale"]:
        raise InvalidInput("memory_forget takes an id or stale=true, not both")
    if a["id"]:
        item = c.kb.delete(a["id"], a["reason"] or "forgotten at an MCP client's request", scope=a["scope"])
        return {"success": True, "deleted": item.to_dict(), "message": f"deleted {item.kind} {item.id}"}
    if not a["stale"]:
        raise InvalidInput("memory_forget needs the id of the item to forget, or stale=true to forget stale facts")
    gone = c.kb.forget_stale(a["days"], a["max_access"], scope=a["scope"], dry_run=a["dry_run"])
    verb = "would forget" if a["dry_run"] else "forgot"
    return {"success": True, "dry_run": a["dry_run"], "count": len(gone), "facts": [f.to_dict() for f in gone],
            "message": f"{verb} {len(gone)} stale fact(s)"}


@tool("memory_pin", "Pin a fact", """Pin a fact so that it is never forgotten automatically (or unpin it
      with unpin=true). Call when the user says something must be kept, e.g. "always remember this". """
      + SCOPED_ID,
      ITEM_ID, Param("unpin", "bool", "Unpin instead.", default=False), REASON, ID_SCOPE, idempotent=True)
def memory_pin(c: Caller, a: Args) -> dict[str, Any]:
    if a["unpin"]:
        fact = c.kb.unpin(a["id"], a["reason"], scope=a["scope"])
    else:
        fact = c.kb.pin(a["id"], a["reason"], scope=a["scope"])
    return {"success": True, "fact": fact.to_dict(), "message": f"{'unpinned' if a['unpin'] else 'pinned'} {fact.id}"}


@tool("memory_conflicts", "Possible conflicts", """List pairs of current facts that may contradict each
      other: kenning kept both because it could not tell whether the newer one corrects the older
      (each pair says why). Call when recalled facts disagree, or now and then to tidy memory. To
      settle a pair, call memory_supersede with the id of the fact that no longer holds and the
      content of the one that does; when both hold, leave them.""",
      SCOPE, read_only=True)
def memory_conflicts(c: Caller, a: Args) -> dict[str, Any]:
    found = c.kb.conflicts(a["scope"])
    return {"success": True, "scope": a["scope"], "count": len(found), "conflicts": [f.to_dict() for f in found],
            "message": (f"{len(found)} possible conflict(s); settle one with memory_supersede(id=<the outdated "
                        "fact>, content=<the current fact's content>)") if found else "no possible conflicts"}


# -- lessons and entities -----------------------------------------------------------------------------


@tool("lesson_record", "Record a lesson", """Record what was tried, how it went and what to do next
      time. Call after something failed or succeeded unexpectedly (a command that broke, a fix that
      worked, a wrong assumption), so the next session does not repeat it.""",
      Param("action", "text", "What was done.", required=True, aliases=("tried", "what")),
      Param("context", "text", "Where / in what situation, e.g. 'deploying the web app'.", required=True,
            aliases=("situation", "where")),
      Param("outcome", "text", "How it went.", required=True, choices=("positive", "negative", "neutral"),
            aliases=("result",)),
      Param("insight", "text", "What to do next time.", required=True, aliases=("lesson", "learned", "takeaway")),
      TAGS, SCOPE)
def lesson_record(c: Caller, a: Args) -> dict[str, Any]:
    lesson = c.kb.lessons.record(a["action"], a["context"], a["outcome"], a["insight"], tags=a["tags"],
                                 scope=a["scope"], source=c.origin)
    return {"success": True, "lesson": lesson.to_dict(), "message": f"recorded lesson {lesson.id}"}


@tool("lessons_for", "Lessons for a task", """The lessons that bear on a task, by words and meaning,
      negative outcomes (what to avoid) first. Call before starting a task that has gone wrong before:
      deploys, migrations, releases, anything risky.""",
      Param("task", "text", "The task or context.", required=True, aliases=("context", "query", "q", "text")),
      Param("outcome", "text", "Only this outcome.", choices=("positive", "negative", "neutral")),
      Param("k", "int", "How many lessons.", default=5, low=1, high=100, aliases=K.aliases),
      TAGS, SCOPE, read_only=True)
def lessons_for(c: Caller, a: Args) -> dict[str, Any]:
    hits = c.kb.recall(a["task"], a["k"] if a["outcome"] is None else min(100, a["k"] * 4), scope=a["scope"],
                       kinds=["lesson"], tags=a["tags"])
    found = [h for h in hits if a["outcome"] is None or getattr(h.item, "outcome", None) == a["outcome"]][:a["k"]]
    order = {"negative": 0, "neutral": 1, "positive": 2}
    found.sort(key=lambda h: order.get(getattr(h.item, "outcome", ""), 1))  # stable: best match first within each
    return {"success": True, "task": a["task"], "count": len(found), "lessons": [h.to_dict() for h in found]}


@tool("entity_upsert", "Save an entity", """Create or update a named person, service, host or project:
      kind, aliases, attributes (merged key by key) and notes (appended). Call when the conversation
      names something you will need to know about again (who owns a service, a host's role).""",
      Param("name", "text", "Its name, unique in the scope.", required=True, aliases=("entity",), limit=SHORT),
      Param("kind", "text", "What it is: person, service, host, project, …", aliases=("type", "entity_kind"),
            limit=SHORT),
      Param("aliases", "texts", "Other names, e.g. ['张伟'].", aliases=("alias",)),
      Param("attributes", "object", "Attributes, e.g. {\"team\": \"web\"}.", aliases=("attrs", "properties")),
      Param("notes", "text", "Free text, appended to earlier notes.", aliases=("note",)),
      SCOPE)
def entity_upsert(c: Caller, a: Args) -> dict[str, Any]:
    entity = c.kb.entities.upsert(a["name"], kind=a["kind"], aliases=a["aliases"], attributes=a["attributes"],
                                  notes=a["notes"], scope=a["scope"], source=c.origin)
    return {"success": True, "entity": entity.to_dict()}


@tool("entity_get", "Look up an entity", """Look a person, service, host or project up by name or alias
      (case and width ignored). Call when the user mentions a name you should know.""",
      Param("name", "text", "Its name or one of its aliases.", required=True, aliases=("entity", "q", "query"),
            limit=SHORT),
      SCOPE, read_only=True)
def entity_get(c: Caller, a: Args) -> dict[str, Any]:
    return {"success": True, "entity": c.kb.entities.get(a["name"], a["scope"]).to_dict()}


# -- notes and hot memory -------------------------------------------------------------------------------


@tool("notes_write", "Write a daily note", """Append a timestamped entry to today's notes. Call when
      something happened worth finding later but not worth a fact: what was done, decided or tried
      during the session.""",
      Param("text", "text", "The note.", required=True, aliases=("content", "note")),
      Param("date", "text", "The day it belongs to, YYYY-MM-DD (default: today).", aliases=("day",), limit=SHORT),
      SCOPE)
def notes_write(c: Caller, a: Args) -> dict[str, Any]:
    notes = c.kb.notes_in(a["scope"]).write(a["text"], a["date"])
    return {"success": True, "notes": [n.to_dict() for n in notes]}


@tool("notes_search", "Search daily notes", """Search the daily notes and HISTORY.md by words and
      meaning. Call when the user refers to something that happened in an earlier session ("what did
      we do about the outage last week?").""",
      Param("query", "text", "What to look for.", required=True, aliases=QUERY_ALIASES),
      Param("days_back", "int", "Only notes of the last this many days.", default=30, low=0,
            aliases=("days",)),
      K, Param("include_archive", "bool", "Also search archived days.", default=False, aliases=("archive",)),
      Param("min_relevance", "number", "Leave out notes less likely relevant than this (0-1; 0 keeps all k). "
            "Each hit's relevance is on the same scale as memory_recall's.", default=DEFAULT_MIN_RELEVANCE,
            low=0, high=1, aliases=("threshold", "min_score")),
      SCOPE, read_only=True)
def notes_search(c: Caller, a: Args) -> dict[str, Any]:
    hits = c.kb.notes_in(a["scope"]).search(a["query"], days_back=a["days_back"], k=a["k"],
                                            include_archive=a["include_archive"], min_relevance=a["min_relevance"])
    answer = {"success": True, "query": a["query"], "count": len(hits), "hits": [h.to_dict() for h in hits]}
    if not hits:
        answer["message"] = hits.empty_reason()
    return answer


@tool("hot_memory", "Hot memory", """Show or change the hot memory (MEMORY.md and USER.md), loaded into
      every session under a token budget. Call with action=add when something must be known in every
      future session (a lasting preference, a key project fact, a pitfall); replace when such an
      entry is out of date; remove when it no longer holds. Entries are found by a piece of their
      text (old). Keep entries short.""",
      Param("action", "text", "What to do.", default="show", choices=("show", "add", "replace", "remove")),
      Param("text", "text", "add / replace: the entry.", aliases=("content", "entry", "new", "new_text")),
      Param("old", "text", "replace / remove: a piece of the entry's text that only it contains.",
            aliases=("substring", "find", "match", "old_text")),
      Param("section", "text", "add: user goes to USER.md; project, pitfalls and other to MEMORY.md.",
            default="other", choices=("user", "project", "pitfalls", "other")),
      Param("file", "text", "show: only this file.", choices=("MEMORY.md", "USER.md")),
      Param("make_room", "bool", "add: compress the file if the entry would pass its budget.", default=False),
      Param("force", "bool", "remove: allow removing more than half of a file's entries.", default=False),
      REASON, SCOPE, destructive=True)
def hot_memory(c: Caller, a: Args) -> dict[str, Any]:
    hot, action = c.kb.hot_in(a["scope"]), a["action"]
    if action == "show":
        return hot.show(a["file"])
    if action == "add":
        return hot.add(_hot_needs(a, "text", action), a["section"], make_room=a["make_room"], reason=a["reason"])
    if action == "replace":
        return hot.replace(_hot_needs(a, "old", action), _hot_needs(a, "text", action), reason=a["reason"])
    piece = a["old"] if a["old"] is not None else a["text"]  # "remove X" is often given as text
    if piece is None:
        raise InvalidInput("hot_memory remove needs old: a piece of the entry's text")
    return hot.remove(piece, reason=a["reason"], force=a["force"])


def _hot_needs(a: Args, key: str, action: str) -> str:
    if a[key] is None:
        raise InvalidInput(f"hot_memory {action} needs {key}")
    return str(a[key])


# -- context and consolidation -------------------------------------------------------------------------


@tool("context_build", "Context for a task", """Everything kenning knows that bears on a task, within a
      token budget: hot memory, the skills catalog, the matching skills, relevant facts, lessons,
      entities and notes, as Markdown. Call at the start of a session or task, before planning.""",
      Param("task", "text", "The task in a sentence.", required=True, aliases=("query", "q", "text", "question")),
      Param("budget_tokens", "int", "Most tokens the context may take.", default=4000, low=100, high=200_000,
            aliases=("budget", "max_tokens", "tokens")),
      SCOPE, read_only=True)
def context_build(c: Caller, a: Args) -> dict[str, Any]:
    data = c.kb.context(a["task"], a["budget_tokens"], scope=a["scope"]).to_dict()
    # the text is in "markdown" once; the sections keep their names, sizes and sources
    data["sections"] = [{k: v for k, v in s.items() if k != "text"} for s in data["sections"]]
    return data


@tool("session_consolidate", "Consolidate the session", """Turn a conversation into lasting memory: a
      HISTORY.md entry, hot-memory changes, facts, lessons, entities and maybe a skill draft. Call at
      the end of a session or a finished task, with the conversation's messages. Uses the model
      configured in kenning, else your client's model when it offers sampling, else a deterministic
      fallback that keeps only explicit statements ("remember that …", "I prefer …", "never …").""",
      Param("messages", "objects", "The conversation: [{\"role\": \"user\"|\"assistant\"|\"system\", "
            "\"content\": \"...\"}, ...].", required=True, aliases=("conversation", "transcript", "history"),
            items=MESSAGE),
      Param("model", "text", "Which model extracts the memory: auto (configured, else the client's, else the "
            "fallback), configured, client or fallback.", default="auto",
            choices=("auto", "configured", "client", "fallback")),
      SCOPE)
def session_consolidate(c: Caller, a: Args) -> dict[str, Any]:
    return c.kb.consolidate(a["messages"], scope=a["scope"], llm=_model(c, a["model"])).to_dict()


def _model(c: Caller, choice: str) -> LLM | None:
    """The model ``choice`` names, or None for the fallback; refused when the one asked for is missing."""
    if choice == "fallback":
        return None
    if choice == "client":
        if c.client_model is None:
            raise InvalidInput("this MCP client does not lend its model (no sampling on this connection); "
                               "use model='auto' or 'fallback'")
        return c.client_model
    configured = c.kb.llm
    if choice == "configured" and configured is None:
        raise InvalidInput(f"no language model is configured: set [llm] base_url and model in "
                           f"{c.kb.settings.config_path}, or use model='auto'")
    return configured if configured is not None else c.client_model


# memory_list, memory_get and memory_update live in their own module and register in TOOLS on import
from . import browse as browse  # noqa: E402

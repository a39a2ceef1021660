"""Redaction of keys glued to the text before them ("token-sk-ant-…", "tAKIA…"), of US Social
Security numbers, IBANs and passphrases of several words; and the look-alikes each must leave alone
(slugs, CamelCase names, dates, phone numbers, upper-case ids, code)."""

from __future__ import annotations

import time

import pytest

from kenning.gate import redact
from kenning.gate.redact import iban_valid, ssn_valid

ANTHROPIC = "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-Dc9Ba8"
OPENAI_PROJ = "sk-proj-4fT9xQ2mL8vB1nR7kP3sW6yZ0aC5dE8"
OPENAI_LEGACY = "sk-3aB9cD2eF5gH8iJ1kL4mN7oP0qR3sT6uV9wX2yZ5aB8c"
AWS_ID = "AKIAIOSFODNN7EXAMPLE"
GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
SLACK = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"

# (text, kind, the secret that must go)
GLUED = [
    (f"token-{ANTHROPIC}", "anthropic_key", ANTHROPIC),
    (f"ui-{OPENAI_PROJ}", "openai_key", OPENAI_PROJ),
    (f"t{AWS_ID}", "aws_access_key_id", AWS_ID),
    (f"key_{ANTHROPIC} in the log", "anthropic_key", ANTHROPIC),
    (f"task-{OPENAI_LEGACY}", "openai_key", OPENAI_LEGACY),
    (f"id9{AWS_ID}", "aws_access_key_id", AWS_ID),
    (f"mytoken{GITHUB}", "github_token", GITHUB),
    (f"bot{SLACK}", "slack_token", SLACK),
    (f"maps-{GOOGLE}", "google_api_key", GOOGLE),
    (f"x{STRIPE}", "stripe_key", STRIPE),
]

PERSONAL = [
    ("SSN 078-05-1120", "us_ssn", "078-05-1120"),
    ("my SSN is 219-09-9999.", "us_ssn", "219-09-9999"),
    ("her social security number: 078 05 1120", "us_ssn", "078 05 1120"),
    ("SSN#078051120 on the form", "us_ssn", "078051120"),
    ("the employee (536-22-8726) starts Monday", "us_ssn", "536-22-8726"),
    ("IBAN DE89 3704 0044 0532 0130 00, thanks", "iban", "DE89 3704 0044 0532 0130 00"),
    ("IBAN: DE89370400440532013000", "iban", "DE89370400440532013000"),
    ("pay to GB82 WEST 1234 5698 7654 32 by Friday", "iban", "GB82 WEST 1234 5698 7654 32"),
    ("FR14 2004 1010 0505 0001 3M02 606", "iban", "FR14 2004 1010 0505 0001 3M02 606"),
    ("账户 NL91ABNA0417164300 已确认", "iban", "NL91ABNA0417164300"),
]

PASSPHRASES = [
    ("passphrase: correct horse battery staple", "correct horse battery staple"),
    ("GPG passphrase: s3cret tulip river", "s3cret tulip river"),
    ("KEY_PASSPHRASE=tulip river 42", "tulip river 42"),
    ('"passphrase": "correct horse battery"', "correct horse battery"),
    ("ssh key pass phrase: blue moon rising", "blue moon rising"),
    ("passphrase：tulip river 42", "tulip river 42"),
]

KEPT = [
    # "sk-" ending a word, then a slug or a name: no key
    "risk-assessment-2024-q3-report-final",
    "task-1234-implement-login-flow-v2-and-tests",
    "flask-RefactorTheParser2024ModuleForRelease",
    "disk-ant-colony-simulation-2024-v2",
    "task-proj-2024-Q3-planning-meeting-notes-v2",
    "hugsxoxo-see-you-soon-love",
    "def task_test_integrationsuiterunner():",
    "MALAYSIAAIRLINESFLIGHT37 lands at 9",
    # dates, phone numbers and other dashed numbers
    "released 2024-05-12 and 2024-05-1234",
    "part 078-05-1120-01 and rev-078-05-1120",
    "000-12-3456, 666-12-3456, 900-12-3456, 123-00-4567, 123-45-0000",
    "took 219-09-9999 ms",
    "ISBN 978-3-16-148410-0, zip 12345-6789",
    # upper-case ids that are not IBANs (checksum or length wrong)
    "DE89 3704 0044 0532 0130 01",
    "build AB12CDEFGHIJKLMNOP and XY99 1234 5678 9012",
    "order GB82WEST12345698765433",
    # passphrases that are placeholders or code
    "passphrase: your passphrase here",
    "passphrase: <your passphrase>",
    "passphrase=$GPG_PASSPHRASE",
    "passphrase = args.passphrase or default",
    "def unlock(passphrase: str = ''):",
    "passphrase = None if interactive else read()",
]


@pytest.mark.parametrize(("text", "kind", "secret"), GLUED + PERSONAL, ids=[t for t, _, _ in GLUED + PERSONAL])
def test_glued_keys_ssns_and_ibans_are_masked_with_their_kind(text: str, kind: str, secret: str) -> None:
    result = redact(text)
    assert result.kinds == (kind,), result
    assert secret not in result.text and f"[REDACTED:{kind}]" in result.text
    assert redact(result.text).found == ()


def test_a_glued_key_keeps_the_text_it_was_glued_to() -> None:
    assert redact(f"token-{ANTHROPIC}").text == "token-[REDACTED:anthropic_key]"
    assert redact(f"task-{OPENAI_PROJ}").text == "task-[REDACTED:openai_key]"  # not the "sk-" of "task-"
    assert redact(f"t{AWS_ID}").text == "t[REDACTED:aws_access_key_id]"


@pytest.mark.parametrize(("text", "secret"), PASSPHRASES, ids=[t for t, _ in PASSPHRASES])
def test_a_passphrase_of_several_words_is_masked_whole(text: str, secret: str) -> None:
    result = redact(text)
    assert result.kinds == ("password",), result
    assert all(word not in result.text for word in secret.split()), result.text


def test_a_passphrase_ends_with_its_sentence() -> None:
    assert redact("Passphrase: correct horse battery staple. Keep it safe").text == \
        "Passphrase: [REDACTED:password]. Keep it safe"
    assert redact("passphrase: hunter2x, rotated monthly").text == "passphrase: [REDACTED:password], rotated monthly"


@pytest.mark.parametrize("text", KEPT)
def test_look_alikes_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_a_phone_number_stays_a_phone_number() -> None:
    assert redact("call 415-555-2671 or (415) 555-2671").kinds == ("phone",)


def test_checksums_and_ranges_decide_ibans_and_ssns() -> None:
    assert iban_valid("DE89 3704 0044 0532 0130 00") and iban_valid("GB82WEST12345698765432")
    assert not iban_valid("DE89 3704 0044 0532 0130 01")  # the check digits do not match
    assert not iban_valid("DE89 3704 0044 0532 0130 0")  # Germany's are 22 long
    assert not iban_valid("ZZ89370400440532013000")  # no such country
    assert ssn_valid("078-05-1120") and ssn_valid("078051120")
    assert not any(ssn_valid(n) for n in ("000-05-1120", "666-05-1120", "900-05-1120", "078-00-1120",
                                          "078-05-0000"))


@pytest.mark.parametrize("text", ["passphrase: " + "a " * 50_000, "x" + "sk-" * 60_000, "tAKIA" * 40_000,
                                  "DE89 " * 40_000, "123-45-" * 30_000, "SSN " * 50_000])
def test_pathological_input_is_redacted_in_linear_time(text: str) -> None:
    start = time.perf_counter()
    redact(text)
    assert time.perf_counter() - start < 3.0

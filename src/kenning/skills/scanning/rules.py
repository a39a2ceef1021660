"""The text rules: each needs an intent or a sink, not a keyword.

A command that skills use every day is not a finding by itself: ``curl -o file URL``, ``python -c``,
``rm -rf build/``, ``pip install``, reading ``$API_KEY`` to send it to that API. What is:

    download_exec      what was fetched goes straight to an interpreter (``| sh``, ``bash <(…)``,
                       ``"$(curl …)"``, ``iex (iwr …)``), or decoded bytes do (``base64 -d | sh``,
                       ``exec(b64decode(…))``, ``eval(atob(…))``)
    exfiltration       a network or mail sink on the same line as a secret source (a credential
                       file, the whole environment, the conversation), or, in one file, code that
                       reads a credential file and code that sends
    destructive        the target is the root, the home folder or a disk, not a path below them
    reverse_shell      a shell wired to a socket
    credential_access  a read (cat, cp, open(…), Get-Content …) of a credential store; ``ssh -i``,
                       ``chmod 600`` and public keys are not reads of a secret
    defense_evasion, persistence
                       the exact switches that turn off history, logging or protection, and writes
                       to the places that run code at login or on a schedule
    prompt_injection   instructions addressed to the model against its user: override what came
                       before, hide from the user, take another role, run tools without asking
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .deobfuscate import Line
from .model import Finding, short


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
PIPE_TO_SHELL = r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:\w+=\S*\s+){0,3}" + SHELL
DECODE = (r"(?:b64decode|base64\.decodebytes|a85decode|b32decode|decodestring|\batob\s*\(|Buffer\.from\s*\([^)]{0,300}base64|"
          r"zlib\.decompress|codecs\.decode|bytes\.fromhex|unhexlify|FromBase64String|String\.fromCharCode|\\x[0-9a-f]{2})")
CREDENTIAL = (r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|\$env:USERPROFILE|/home/\w+|/root|/Users/\w+|expanduser\([^)]{0,20})?"
              r"[\\/]?(?:\.ssh[\\/](?:id_[a-z0-9_]+(?!\.pub)\b|[\w.-]*(?:_rsa|_ed25519|_ecdsa|\.pem)\b(?!\.pub))|"
              r"\.aws[\\/]credentials|\.netrc\b|\.git-credentials|\.docker[\\/]config\.json|\.kube[\\/]config|"
              r"gcloud[\\/](?:credentials\.db|application_default_credentials\.json|access_tokens\.db|legacy_credentials)|"
              r"\.config[\\/]gh[\\/]hosts\.yml|\.claude[\\/]\.credentials\.json|\.codex[\\/]auth\.json|\.npmrc|\.pypirc|/etc/shadow|\.gnupg[\\/]|\.password-store|"
              r"(?:Chrome|Chromium|Edge|Brave\w*|Firefox|Mozilla|Opera|Vivaldi|Safari)[^\n]{0,80}(?:Login Data|Cookies|Web Data|Local State)\b|"
              r"\b(?:key4\.db|logins\.json|cookies\.sqlite|Cookies\.binarycookies)\b|\.ssh[\\/]?(?=\s|$|[\"')])|"
              r"\.(?:bash|zsh)_history|Keychains?[\\/]|login\.keychain)")
SENSITIVE = CREDENTIAL + r"|(?:@|<\s*|-T\s+|--upload-file\s+|--post-file=|\$\(\s*cat\s+)(?:\./)?\.env\b|/etc/passwd|/proc/self/environ"
ENV_DUMP = (r"(?:\$\([^)]{0,200}(?:^|[;&(]|\s)(?:env|printenv|export\s+-p)\s*\)|`(?:env|printenv)`|\b(?:env|printenv)\s*\||"
            r"os\.environ(?!\s*(?:\[|\.get|\.setdefault|\.pop|\.__getitem__))|process\.env(?!\s*(?:\.|\[))|"
            r"(?:gci|Get-ChildItem|ls|dir)\s+env:)")
CONVERSATION = (r"(?:(?:the|this|entire|whole|full|complete|user'?s?|our|my|all)\s+){0,3}(?:conversation|chat history|chat log|transcript|"
                r"message history|system prompt|previous messages|对话|聊天记录|会话内容|系统提示)")
SINK = (r"(?:\bcurl\b|\bwget\b|requests\.(?:post|put|patch|request)|httpx\.(?:post|put|patch|request)|\burlopen\b|"
        r"urllib\.request|\bfetch\s*\(|axios|\bhttp\.request|XMLHttpRequest|sendBeacon|Invoke-WebRequest|"
        r"Invoke-RestMethod|\biwr\b|\birm\b|Net\.WebClient|UploadString|UploadFile|\bnc\b|\bncat\b|\bnetcat\b|"
        r"\bsocat\b|/dev/tcp/|smtplib|\bsendmail\b|\bmailx?\s+-|\bmutt\b|"
        r"socket\.(?:send|connect)|\.sendall\(|ftplib|paramiko)")
_ROOT_TARGET = (r"(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*?|\$\{HOME\}/\*?|\.\./\.\.|/(?:etc|usr|bin|sbin|boot|"
                r"var|lib|lib64|home|opt|root|sys|dev|System|Users|Library|Applications)/?\*?|[A-Za-z]:\\\\?\*?)")
_END = r"(?=\s|$|;|&|\||\)|\"|'|`)"
_RM_RF = r"\brm\s+(?:-\w+\s+)*(?:-[a-z]*r[a-z]*f[a-z]*|-[a-z]*f[a-z]*r[a-z]*|-r\s+-f|-f\s+-r|--recursive\s+--force|--force\s+--recursive)\s+(?:--\s+)?(?:--no-preserve-root\s+)?(?:\"|')?"
_RC = r"(?:~|\$HOME|\$\{HOME\}|expanduser\([\"']?~)/\.(?:bashrc|zshrc|profile|bash_profile|bash_login|zprofile|zshenv|zlogin|config/fish/config\.fish)\b"
_IGNORE_EN = r"(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*(?:previous|prior|above|earlier|preceding|former|original|system|developer|safety|existing|user'?s|the\s+user'?s)\s+(?:\w+\s+){0,2}(?:instructions?|prompts?|rules|directions|guidelines|messages|context|constraints|policies)"
_IGNORE_ZH = r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|不必理会)[^。！？\n]{0,8}?(?:之前|以前|先前|前面|上面|以上|上述|原来|原有|此前|所有|全部|一切|系统|用户)[^。！？\n]{0,8}?(?:指令|指示|说明|规则|提示词?|要求|设定|约束)"
_HIDE_EN = r"(?:(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|inform|mention|reveal|disclose|alert|notify)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?(?:user|human|operator|person)|(?:do\s+not|don'?t|never)\s+let\s+(?:the\s+)?user\s+know|without\s+(?:telling|informing|notifying|alerting|the\s+knowledge\s+of)\s+(?:the\s+)?(?:user|human)|(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:secret\s+|hidden\s+)?from\s+the\s+(?:user|human))"
_HIDE_ZH = r"(?:不要|别|不准|不得|切勿|不可以?|禁止)(?:(?:告诉|告知|通知|提醒|透露给)(?:用户|使用者)|向(?:用户|使用者)(?:透露|提及|说明|提起)|让(?:用户|使用者)(?:知道|发现|察觉))|(?:对|向)用户(?:隐瞒|保密)|(?:瞒着|背着)用户"
_ROLE = r"(?:your\s+(?:new|real|true|actual)\s+(?:task|instructions?|role|goal|objective)\s+(?:is|are)|you\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|an?\s+unrestricted|no\s+longer)|(?:enter|enable|activate)\s+(?:developer|god|jailbreak|DAN)\s+mode|new\s+system\s+prompt\s*:|<\s*/?\s*(?:system|im_start|im_end)\s*>|\[\s*/?(?:SYSTEM|INST)\s*\]|^\s*system\s*:\s*you\s+are|你现在(?:是|扮演)一个?(?:不受限制|没有限制|无限制)|进入开发者模式)"
_FORCED = r"(?:(?:without|never)\s+(?:asking|ask|requesting|seeking|waiting\s+for)\s+(?:the\s+user\s+)?(?:for\s+)?(?:permission|confirmation|approval|consent)|(?:bypass|skip|disable|ignore)\s+(?:the\s+|any\s+|all\s+)?(?:user'?s\s+)?(?:permission|approval|confirmation|safety)\s+(?:checks?|prompts?|dialogs?)|(?:always|immediately|automatically)\s+(?:call|run|invoke|execute|use)\s+(?:the\s+)?[\w.-]+\s+tool\s+(?:first|before|whenever|on\s+every)|--dangerously-skip-permissions|无需(?:用户)?(?:确认|同意|许可)|不要(?:征求|请求|询问)(?:用户)?(?:的)?(?:同意|许可|确认))"

LINE_RULES: tuple[Rule, ...] = (
    # download and execute
    _rule("download_exec", "critical", FETCH + r"\b[^|\n]{0,400}" + PIPE_TO_SHELL, "downloaded content is piped straight into an interpreter", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:<|\bsource|\.)\s*\(\s*" + FETCH, "downloaded content is run as a script (process substitution)", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:\b(?:ba|z|k)?sh|\bpython[23]?|\bperl|\bruby|\bnode|\beval|\bexec|\bsource)\s+(?:-\w+\s+)*[\"']?\s*(?:\$\(|`)\s*" + FETCH, "downloaded content is run through command substitution", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    _rule("download_exec", "critical", r"(?:\biex\b|Invoke-Expression)\s*[\s(]*(?:\$\(\s*)?(?:" + FETCH + r"|\(?\s*New-Object\s+(?:System\.)?Net\.WebClient|\[System\.Net\.WebClient\])", "PowerShell runs downloaded text as code", ("iex", "invoke-expression",)),
    _rule("download_exec", "critical", r"(?:DownloadString|DownloadData|Invoke-WebRequest|Invoke-RestMethod|\biwr\b|\birm\b)[^\n]{0,300}\|\s*(?:iex|Invoke-Expression)\b", "PowerShell pipes downloaded text into Invoke-Expression", ("iex", "invoke-expression",)),
    _rule("download_exec", "critical", r"\bbase64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b[^|\n]{0,200}" + PIPE_TO_SHELL, "decoded data is piped into an interpreter", ("base64",)),
    _rule("download_exec", "critical", r"(?:\bxxd\s+-r|\bopenssl\s+(?:enc\s+)?(?:-\w+\s+)*-d)\b[^|\n]{0,200}" + PIPE_TO_SHELL, "decoded data is piped into an interpreter", ("xxd", "openssl",)),
    _rule("download_exec", "critical", r"\b(?:exec|eval|compile|Function|execfile|runpy\.run_code)\s*\(\s*(?:new\s+)?[^\n]{0,80}" + DECODE, "decoded data is executed as code", ("exec", "eval", "compile", "function", "runpy",)),
    _rule("download_exec", "critical", r"\beval\s+[\"']?\$\((?:[^)]{0,200})(?:base64\s+(?:-\w+\s+)*-(?:d|D)|--decode|xxd\s+-r|rev\b)", "a shell evaluates decoded text", ("eval",)),
    _rule("download_exec", "critical", r"\b(?:exec|eval)\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get|\(?await\s+fetch|fetch)\s*\(", "code fetched from the network is executed", ("exec", "eval",)),
    _rule("download_exec", "high", FETCH + r"\b[^\n]{0,300}(?:-o|-O|--output|>)\s*([\w./~$-]+)\s*(?:&&|;)\s*(?:chmod\s+\+?[0-7x+]+\s+\1\s*(?:&&|;)\s*)?(?:sudo\s+)?(?:(?:ba|z)?sh\s+|python[23]?\s+|\./)?\1(?=\s|$|;)", "a downloaded file is executed right away, before anyone can read it", ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "lwp-",)),
    # exfiltration
    _rule("exfiltration", "critical", SINK + r"[^\n]{0,400}(?:" + SENSITIVE + ")", "a network or mail sink sends a credential or secret file", ("curl", "wget", "request", "httpx", "urlopen", "fetch", "axios", "http.", "beacon", "invoke-", "iwr", "irm", "webclient", "upload", "nc", "netcat", "socat", "/dev/tcp", "smtp", "mail", "mutt", "socket", "sendall", "ftplib", "paramiko",)),
    _rule("exfiltration", "critical", r"(?:" + SENSITIVE + r")[^\n]{0,300}\|\s*(?:base64\s*(?:-w\s*0\s*)?\|\s*)?(?:curl|wget|nc|ncat|netcat|socat|mailx?|sendmail|mutt)\b", "a credential or secret file is piped to the network or mail", ("|",)),
    _rule("exfiltration", "critical", SINK + r"[^\n]{0,400}" + ENV_DUMP + "|" + ENV_DUMP + r"[^\n]{0,400}" + SINK, "the whole environment (every variable, every token in it) is sent out", ("env", "environ", "printenv",)),
    _rule("exfiltration", "critical", r"\b(?:nc|ncat|netcat)\b\s+(?:-\w+\s+)*[\w.-]+\s+\d{1,5}\s*<\s*\S+|\b(?:cat|tar|zip)\b[^\n|]{0,200}\|\s*(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.-]+\s+\d{1,5}", "a file is sent over a raw socket", ("nc", "netcat",)),
    _rule("exfiltration", "critical", r"\b(?:mailx?|sendmail|mutt)\b[^\n<]{0,200}(?:-s\s|\S+@\S+)[^\n<]{0,200}(?:<\s*[~/$.\w]\S*|-a\s+\S+)", "a file is sent by mail", ("mail", "mutt",)),
    _rule("exfiltration", "critical", r"(?:send|post|upload|forward|email|submit|transmit|leak|copy|exfiltrate)\s+(?:a\s+copy\s+of\s+)?" + CONVERSATION + r"[^\n]{0,120}(?:to|into)\s+(?:https?://|\S+@\S+|(?:this|the|my|our|a|an)\s+(?:\w+\s+)?(?:url|endpoint|webhook|server|email|address))", "instructions send the conversation to a third party", ("conversation", "chat", "transcript", "history", "prompt", "messages", "对话", "聊天", "会话", "系统提示",)),
    _rule("exfiltration", "critical", r"(?:把|将)" + CONVERSATION + r"[^\n]{0,60}(?:发送|上传|发|转发|提交)(?:到|给|至)", "instructions send the conversation to a third party", ("对话", "聊天", "会话", "系统提示",)),
    _rule("exfiltration", "critical", r"(?:send|post|upload|email|exfiltrate)\s+(?:the\s+|all\s+|any\s+|every\s+)*(?:user'?s\s+)?(?:ssh\s+keys?|private\s+keys?|api\s+keys|tokens|credentials|passwords|secrets|environment\s+variables|cookies|\.env\s+files?)\s+[^\n]{0,80}(?:to|into)\s+(?:https?://|\S+@\S+|(?:this|the|my|our|a)\s+(?:\w+\s+)?(?:url|endpoint|webhook|server|email|address))", "instructions send secrets to a third party", ("send", "post", "upload", "email", "exfiltrate",)),
    _rule("exfiltration", "medium", r"(?:webhook\.site|requestbin|pipedream\.net|\.ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|discord(?:app)?\.com/api/webhooks)", "a request-collection endpoint often used to receive stolen data", ("webhook", "requestbin", "pipedream", "ngrok", "burp", "interact.sh", "oast.",)),
    # destructive
    _rule("destructive", "critical", r"\b(?:shutil\.rmtree|rmSync|rimraf|fs\.rm)\s*\(\s*(?:Path\.home\(\)|os\.path\.expanduser\(\s*[\"']~/?[\"']\s*\)|os\.homedir\(\)|os\.environ\[\s*[\"']HOME[\"']\s*\]|(?:Path\()?[\"'](?:/|~|~/|[A-Za-z]:\\\\?)[\"']\)?)\s*[,)]", "deletes the home folder or the root", ("rmtree", "rmsync", "rimraf", "fs.rm")),
    _rule("destructive", "high", r"\bgit\s+push\s+(?:\S+\s+)*(?:--force(?!-with-lease)|-f)\b[^\n]{0,80}\b(?:main|master|trunk)\b|\bgit\s+push\s+\S+\s+--delete\s+\$\(", "force-pushes over the main branch or deletes remote branches in bulk", ("git",)),
    _rule("destructive", "critical", _RM_RF + _ROOT_TARGET + _END, "deletes the root, the home folder or a system folder", ("rm",)),
    _rule("destructive", "critical", r"--no-preserve-root", "removes the safeguard against deleting /", ("no-preserve-root",)),
    _rule("destructive", "critical", r"\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/|\bwipefs\s+(?:-\w+\s+)*/dev/|\bshred\b[^\n]{0,100}/dev/", "formats or wipes a disk", ("mkfs", "wipefs", "shred",)),
    _rule("destructive", "critical", r"\bdd\b[^\n]{0,200}\bof=/dev/(?:sd|hd|vd|xvd|nvme|disk|rdisk|mmcblk|mapper)|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d|hd[a-z])\b", "writes over a disk device", ("dd", "/dev/",)),
    _rule("destructive", "critical", r"Remove-Item\s+[^\n]{0,80}(?:-Recurse)[^\n]{0,80}(?:[A-Za-z]:\\\*?(?=\s|$)|\$env:USERPROFILE\\?\*?(?=\s|$)|~\\?\*?(?=\s|$))|\bformat\s+[a-z]:\s*(?:/\w+\s*)*$|Format-Volume|\bdiskpart\b[^\n]{0,40}clean", "deletes or formats a whole drive or the home folder", ("remove-item", "format", "diskpart",)),
    _rule("destructive", "critical", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "a fork bomb", (":()",)),
    _rule("destructive", "critical", r"\bfind\s+(?:/|~|\$HOME)\s+[^\n]{0,100}-delete\b|\bchmod\s+-R\s+0?[0-7]{3}\s+/(?=\s|$)|\bchown\s+-R\s+\S+\s+/(?=\s|$)", "changes or deletes everything under / or the home folder", ("find", "chmod", "chown",)),
    # reverse shells
    _rule("reverse_shell", "critical", r"/dev/(?:tcp|udp)/[\w.\-]+/\d{1,5}", "a shell reads and writes a network socket (/dev/tcp)", ("/dev/tcp", "/dev/udp",)),
    _rule("reverse_shell", "critical", r"\b(?:nc|ncat|netcat)\b[^\n|;]{0,120}\s-(?:e|c)\s*\S|\bmkfifo\b[^\n]{0,200}\b(?:nc|ncat|netcat|telnet)\b|\bsocat\b[^\n]{0,200}exec:", "a shell is handed to a network connection", ("nc", "netcat", "mkfifo", "socat",)),
    _rule("reverse_shell", "critical", r"\bperl\b[^\n]{0,40}-e[^\n]{0,300}socket[^\n]{0,300}exec|\bfsockopen\s*\([^\n]{0,200}(?:exec|shell_exec|system|proc_open)|\bruby\b[^\n]{0,40}-rsocket", "a one-line reverse shell", ("perl", "fsockopen", "ruby",)),
    # credential access
    _rule("credential_access", "high", r"(?:\b(?:read|print|dump|upload|cat|less|head|tail|cp|scp|rsync|tar|zip|base64|xxd|strings|sqlite3|type|Get-Content|gc|Copy-Item)\b|\bopen\s*\(|read_text\(|read_bytes\(|readFileSync\(|readFile\(|fs\.read|shutil\.copy\w*\(|copyfile\(|sqlite3\.connect\(|\.read\s*\(|读取|读出|查看|打印|输出|复制|拷贝|上传)[^\n;|]{0,150}(?:" + CREDENTIAL + ")", "reads a credential store (keys, tokens, cookies, saved passwords)", (".ssh", ".aws", ".netrc", ".git-cred", ".docker", ".kube", "gcloud", ".config", ".npmrc", ".pypirc", "shadow", ".gnupg", ".password", "login data", "cookies", "web data", "local state", "key4", "logins.json", "_history", "keychain",)),
    _rule("credential_access", "high", r"\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain|export)\b|\bbrowser_cookie3\b|\bmimikatz\b|\blsass\b|\bcmdkey\s+/list|\bvaultcmd\b|\bLaZagne\b|CryptUnprotectData", "reads saved passwords or cookies", ("security", "cookie3", "mimikatz", "lsass", "cmdkey", "vaultcmd", "lazagne", "cryptunprotect",)),
    # defense evasion
    _rule("defense_evasion", "high", r"\bunset\s+HISTFILE\b|\bHISTFILE=/dev/null|\bHISTSIZE=0\b|\bhistory\s+-[cw]\b|\bset\s+\+o\s+history|\bhistory\s+-d\b|\bshred\b[^\n]{0,60}_history|\brm\b[^\n]{0,60}\.(?:bash|zsh)_history|>\s*~/\.(?:bash|zsh)_history|ln\s+-sf?\s+/dev/null\s+~/\.\w*_history|Clear-History|PSReadLine[^\n]{0,60}SaveNothing", "erases or turns off the shell history", ("hist", "psreadline",)),
    _rule("defense_evasion", "high", r"\bsetenforce\s+0\b|SELINUX=disabled|\b(?:systemctl|service)\s+(?:stop|disable|mask)\s+(?:--now\s+)?(?:firewalld|ufw|apparmor|auditd|clamav\S*|falcon-sensor|osqueryd|wazuh\S*|crowdstrike|sentinelone|iptables|nftables)\b|\bufw\s+disable\b|\biptables\s+-F\b|Set-MpPreference\s+[^\n]{0,60}-Disable\w+\s+\$?(?:true|1)|Add-MpPreference\s+-Exclusion|netsh\s+(?:adv)?firewall\s+set\s+[^\n]{0,60}\b(?:state\s+off|opmode\s+disable)|\bspctl\s+--master-disable|\bcsrutil\s+disable|\bauditctl\s+-[De]\s*0?", "turns off a security control (SELinux, firewall, antivirus, audit)", ("setenforce", "selinux", "systemctl", "service", "ufw", "iptables", "mppreference", "netsh", "spctl", "csrutil", "auditctl",)),
    _rule("defense_evasion", "high", r"\bchattr\s+[+-][ia]\b|\bwevtutil\s+cl\b|Clear-EventLog|\brm\s+-\w*\s+/var/log\b|>\s*/var/log/(?:auth|secure|syslog|wtmp|btmp|lastlog)|\bjournalctl\s+--vacuum", "hides tracks: immutable files or erased logs", ("chattr", "wevtutil", "eventlog", "/var/log", "journalctl",)),
    _rule("defense_evasion", "medium", r"\bxattr\s+-(?:d|c|rd|dr)\s+(?:com\.apple\.quarantine\s+)?", "removes the macOS quarantine mark from downloaded files", ("xattr",)),
    _rule("defense_evasion", "high", r"\bif\b[^\n]{0,200}(?:\.dockerenv|gettrace\(\)|IsDebuggerPresent|\bvbox|vmware|virtualbox|\bqemu\b|sandboxie)", "behaves differently when it sees it is being analysed (sandbox, debugger, VM)", ("dockerenv", "gettrace", "debugger", "vbox", "vmware", "virtualbox", "qemu", "sandboxie")),
    _rule("defense_evasion", "high", r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n|;]{0,100}(?:-(?:w|windowstyle)\s+hidden\b|-(?:e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,})", "runs PowerShell hidden or with an encoded command a reader cannot see", ("powershell", "pwsh")),
    _rule("defense_evasion", "high", r"(?:disable|turn\s+off|switch\s+off|stop|bypass|escape)\s+(?:the\s+|any\s+|all\s+)?(?:sandbox(?:ing)?|audit(?:ing|\s+log(?:ging|s)?)|security\s+(?:tools?|software|monitoring)|antivirus|endpoint\s+protection)|(?:关闭|禁用|绕过)(?:沙箱|审计|杀毒|防火墙|安全软件)", "tells the agent to switch off a sandbox, auditing or security software", ("disable", "turn", "switch", "stop", "bypass", "escape", "关闭", "禁用", "绕过")),
    # persistence
    _rule("persistence", "high", r"(?:append|add|write|insert|>>|\btee\b|写入|追加|加入)[^\n]{0,100}(?:\.claude[\\/]settings(?:\.local)?\.json|CLAUDE\.md|AGENTS\.md|GEMINI\.md|\.cursorrules|\.cursor[\\/]rules|\.codex[\\/]config\.toml|\.gemini[\\/]settings\.json|mcp\.json)", "changes an agent's own configuration or memory so it applies to every future session", ("claude", "agents.md", "gemini", "cursor", "codex", "mcp.json")),
    _rule("persistence", "high", r"(?:>|\btee\b|\bcp\b|\bmv\b|\bln\b|write|open\()[^\n]{0,120}hooks/(?:pre|post)-[a-z-]+", "installs a git hook that runs on every checkout, commit or push", ("hooks/",)),
    _rule("persistence", "high", r"\|\s*crontab\s+(?:-\s*)?(?:$|[;&)])|\bcrontab\s+(?:-u\s+\S+\s+)?(?:-\s*$|[\w~$-]*[./][\w./~$-]+)|(?:>>?|\btee\s+(?:-a\s+)?)\s*/(?:etc/cron|var/spool/cron)|/etc/cron\.(?:d|daily|hourly)/", "installs a cron job", ("crontab", "cron",)),
    _rule("persistence", "high", r"(?:>>?|\btee\s+(?:-a\s+)?)\s*" + _RC + r"|open\s*\([^\n]{0,80}" + _RC + r"[^\n]{0,40}[\"'][aw]b?\+?[\"']|appendFile(?:Sync)?\([^\n]{0,80}" + _RC + r"|Add-Content[^\n]{0,80}\$PROFILE", "appends to a shell start-up file, so it runs in every new shell", ("bashrc", "zshrc", "profile", "bash_login", "zshenv", "zlogin", "config.fish",)),
    _rule("persistence", "high", r"\blaunchctl\s+(?:load|bootstrap|submit|enable)\b|(?:>|\bcp\b|\bmv\b|\btee\b|\bln\b|write)[^\n]{0,120}Library/Launch(?:Agents|Daemons)", "installs a launchd agent that runs at login", ("launch",)),
    _rule("persistence", "high", r"\bsystemctl\s+--user\s+(?:enable|link)\b|(?:>|\bcp\b|\bmv\b|\btee\b|\bln\b|write)[^\n]{0,120}\.config/systemd/user/|\bloginctl\s+enable-linger", "installs a systemd user unit that runs at login", ("systemctl", "systemd", "loginctl",)),
    _rule("persistence", "high", r"CurrentVersion\\+Run(?:Once)?\b|\bschtasks\s+/create\b|Register-ScheduledTask|New-ScheduledTaskTrigger|Start Menu\\+Programs\\+Startup|\bWMI\w*EventSubscription", "registers a Windows program to run at logon or on a schedule", ("currentversion", "schtasks", "scheduledtask", "startup", "wmi",)),
    _rule("persistence", "high", r"(?:>>|\btee\s+-a)\s*(?:~|\$HOME|\$\{HOME\}|/root)/\.ssh/authorized_keys", "adds a key that lets someone log in over SSH", ("authorized_keys",)),
    # prompt injection
    _rule("prompt_injection", "critical", _IGNORE_EN, "tells the model to drop the instructions it was given", ("ignore", "disregard", "forget", "override", "bypass", "skip",)),
    _rule("prompt_injection", "critical", _IGNORE_ZH, "tells the model to drop the instructions it was given (Chinese)", ("忽", "无视", "忘", "不要理会", "跳过",)),
    _rule("prompt_injection", "critical", _HIDE_EN, "tells the model to hide what it does from the user", ("tell", "inform", "mention", "reveal", "disclose", "alert", "notify", "know", "telling", "hide", "conceal", "keep",)),
    _rule("prompt_injection", "critical", _HIDE_ZH, "tells the model to hide what it does from the user (Chinese)", ("用户",)),
    _rule("prompt_injection", "high", _ROLE, "tries to give the model a new role or system prompt", ("you are now", "mode", "system", "im_", "inst", "你现在", "开发者模式",)),
    _rule("prompt_injection", "high", _FORCED, "makes the model use tools without the user's approval", ("without", "never", "bypass", "skip", "disable", "always", "immediately", "automatically", "dangerously", "无需", "不要",)),
)
# a shell start-up file that only gains a PATH entry or a tool's init line: install instructions, not a foothold
_BENIGN_RC = re.compile(r"(?:export\s+PATH=|\bPATH=|eval\s+\"?\$\(\s*[\w.-]+\s+(?:init|env|shellenv|completion)\b|"
                        r"source\s+[\w$~./-]+/(?:env|completion)|\bcomplete\s+-)", re.IGNORECASE)
CREDENTIAL_RE = re.compile(CREDENTIAL, re.IGNORECASE)
_SINK = re.compile(SINK, re.IGNORECASE)
_SOCKET = re.compile(r"\bsocket\b|TCPClient|net\.(?:Socket|connect|createConnection)", re.IGNORECASE)
_SPAWN = re.compile(r"subprocess|pty\.spawn|os\.system|os\.exec|child_process|/bin/(?:ba)?sh|cmd\.exe|\biex\b|Invoke-Expression", re.IGNORECASE)
_WIRED = re.compile(r"\bdup2\b|pty\.spawn|GetStream\(\)|spawn\(\s*[\"']?(?:/bin/)?(?:ba|z)?sh\b|stdin\s*=\s*\w*sock", re.IGNORECASE)
# a key a command authenticates with is not a key it reads out or sends
_AUTH = re.compile(r"(?:\s-i\s*|--identity-file[\s=]*|IdentityFile\s*|--key[\s=]+|--cert[\s=]+|--cacert[\s=]+|"
                   r"--netrc-file[\s=]*)\S+", re.IGNORECASE)
# nor is what it writes to, or the environment it hands its child processes
_NOT_SENT = re.compile(r"(?:\s-o\s+|--output[\s=]+|>>?\s*)\S+|\benv\s*[=:]\s*[({]?\s*(?:\*\*|\.\.\.|dict\()?\s*"
                       r"(?:os\.environ|process\.env)(?:\.copy\(\))?", re.IGNORECASE)


_ANY_HINT = re.compile("|".join(r.hints.pattern for r in LINE_RULES))
_READ_CREDENTIAL = next(r for r in LINE_RULES if r.kind == "credential_access")


def line_findings(file: str, lines: list[Line], *, decoded_from: int | None = None) -> list[Finding]:
    """The line rules over each line's view (line numbers of ``decoded_from`` for decoded text)."""
    out: list[Finding] = []
    for i, line in enumerate(lines):
        out += _wrapped(file, line, lines[i + 1] if i + 1 < len(lines) else None, decoded_from)
        lower = line.view.lower()
        if not _ANY_HINT.search(lower):
            continue
        unauth = _AUTH.sub(" ", line.view)
        sent = _NOT_SENT.sub(" ", unauth)
        seen: set[str] = set()
        for rule in LINE_RULES:
            if rule.kind in seen or not rule.hints.search(lower):  # first rule of a kind speaks
                continue
            view = sent if rule.kind == "exfiltration" else unauth if rule.kind == "credential_access" else line.view
            m = rule.regex.search(view)
            if m is None:
                continue
            seen.add(rule.kind)
            severity, reason = rule.severity, rule.reason
            if rule.kind == "persistence" and "start-up file" in reason and _BENIGN_RC.search(line.view):
                severity, reason = "medium", reason + " (a PATH entry or a tool's init line)"
            if decoded_from is not None:
                reason += " (in text decoded from base64 or hex)"
            out.append(Finding(rule.kind, severity, file, decoded_from or line.number, short(m.group()), reason))
    return out


_HOME_PATH = re.compile(r"expanduser|Path\.home|homedir\(|\$env:USERPROFILE|%USERPROFILE%|os\.environ\[\s*[\"']HOME|\$HOME|~/", re.IGNORECASE)
_ENV_SENT = re.compile(r"(?:\w+\[[^\]\n]{1,60}\]\s*=\s*|json\.dumps\(\s*|JSON\.stringify\(\s*|\bdata\s*=\s*|\bbody\s*[:=]\s*)"
                       r"(?:dict\(|\{\s*\*\*|\{\s*\.\.\.)?\s*(?:os\.environ|process\.env)\b", re.IGNORECASE)
_EVAL_VAR = re.compile(r"\b(?:eval|exec|Function)\s*\(\s*[A-Za-z_]\w{0,30}\s*\)", re.IGNORECASE)
_FETCHES = re.compile(r"https?\.get\(|\bfetch\s*\(|requests\.get|urlopen|httpx\.get|axios\.get|Invoke-WebRequest|DownloadString", re.IGNORECASE)


_PROSE = tuple(r for r in LINE_RULES if r.kind == "prompt_injection" or r.reason.startswith("instructions"))


def _wrapped(file: str, line: Line, after: Line | None, decoded_from: int | None) -> list[Finding]:
    """Prose rules over a sentence that wraps onto the next line (Markdown paragraphs do): only a
    match that crosses the line break, so one inside either line is not reported twice."""
    if after is None or not line.view.strip() or not after.view.strip():
        return []
    joined = line.view.rstrip() + " " + after.view.lstrip()
    cut = len(line.view.rstrip())
    out: list[Finding] = []
    lower = joined.lower()
    for rule in _PROSE:
        m = rule.regex.search(joined) if rule.hints.search(lower) else None
        if m is not None and m.start() < cut < m.end():
            out.append(Finding(rule.kind, rule.severity, file, decoded_from or line.number, short(m.group()),
                               rule.reason))
    return out


def script_findings(file: str, lines: list[Line]) -> list[Finding]:
    """What takes more than one line of a script: a credential read and a network send in one file;
    a socket wired to a spawned shell. (Not for prose, where a path and a ``curl`` are unrelated.)"""
    out: list[Finding] = []
    read = next((ln for ln in lines if _READ_CREDENTIAL.regex.search(_AUTH.sub(" ", ln.view))), None)
    sink = next((ln for ln in lines if _SINK.search(_NOT_SENT.sub(" ", _AUTH.sub(" ", ln.view)))), None)
    if read is not None and sink is not None and read is not sink:
        out.append(Finding("exfiltration", "critical", file, sink.number, short(sink.view),
                           f"this script reads a credential store (line {read.number}) and sends data out"))
    env = next((ln for ln in lines if _ENV_SENT.search(ln.view)), None)
    if env is not None and sink is not None:
        out.append(Finding("exfiltration", "critical", file, sink.number, short(sink.view),
                           f"this script packs the whole environment (line {env.number}) and sends data out"))
    for ln in lines:
        if CREDENTIAL_RE.search(_AUTH.sub(" ", ln.view)) and _HOME_PATH.search(ln.view) and ln is not read:
            out.append(Finding("credential_access", "high", file, ln.number, short(ln.view),
                               "builds the path of a credential store (keys, tokens, cookies, saved passwords)"))
    evals = next((ln for ln in lines if _EVAL_VAR.search(ln.view)), None)
    if evals is not None and any(_FETCHES.search(ln.view) for ln in lines):
        out.append(Finding("download_exec", "critical", file, evals.number, short(evals.view),
                           "this script fetches from the network and evaluates a variable as code"))
    text = "\n".join(line.view for line in lines)
    if _SOCKET.search(text) and _SPAWN.search(text) and _WIRED.search(text):
        where = next(ln for ln in lines if _WIRED.search(ln.view))
        out.append(Finding("reverse_shell", "critical", file, where.number, short(where.view),
                           "a socket is wired to a spawned shell's input and output"))
    return out

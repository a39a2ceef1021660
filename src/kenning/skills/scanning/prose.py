"""The words of instructions written as prose, for the line rules: an injection is a sentence, not a command.

    IGNORE_INTL   "drop what you were told before" in French, Spanish, German, Russian and Japanese
                  (English and Chinese are in ``rules``)
    PROSE_SEND    one sentence, in any of en, zh, fr, ru, es, de, ja, that names something sensitive
                  (the whole environment, a credential store, a .env file, the shell history), a verb
                  that sends, and an address outside (a URL or an e-mail address), in any order:
                  Japanese puts the verb last, German and French put it first
    HISTORY_WIPE  one sentence that force-pushes and deletes the .git folder (both copies of the history)
    MARKUP_SEND   a Markdown image or link, or an HTML src/href, whose URL runs into a command
                  substitution of the environment or a secret file: rendering it sends the output

Only the whole environment counts as sensitive, not one variable: an API client reads its own
key from the environment and sends it to its own API every day.
"""

from __future__ import annotations

_IGNORE_FR = (r"(?:ignore[zs]?|oublie[zs]?|ne\s+tiens\s+pas\s+compte\s+d)\s*(?:de\s+|des\s+)?(?:toutes\s+)?(?:les\s+|tes\s+|vos\s+)?"
              r"(?:instructions|consignes|règles|directives)\s+(?:précédentes|antérieures|ci-dessus|initiales|du\s+système)")
_IGNORE_ES = (r"(?:ignora|ignore|ignoren|olvida|olvide|omite|omita)\s+(?:todas\s+)?(?:las\s+|tus\s+|sus\s+)?"
              r"(?:instrucciones|reglas|indicaciones|directrices)\s+(?:anteriores|previas|de\s+arriba|del\s+sistema|originales)")
_IGNORE_DE = (r"(?:ignorier(?:e|en\s+Sie)?|vergiss|vergessen\s+Sie|missachte|missachten\s+Sie)\s+(?:alle\s+)?"
              r"(?:die\s+|deine\s+|Ihre\s+)?(?:vorherigen|vorigen|bisherigen|früheren|obigen|ursprünglichen)\s+"
              r"(?:Anweisungen|Instruktionen|Regeln|Vorgaben|Befehle)")
_IGNORE_RU = (r"(?:проигнорируй(?:те)?|игнорируй(?:те)?|забудь(?:те)?|не\s+обращай(?:те)?\s+внимания\s+на)\s+(?:все\s+)?"
              r"(?:предыдущие|прежние|прошлые|вышеуказанные|системные|исходные)\s+(?:инструкции|указания|правила|команды)")
_IGNORE_JA = (r"(?:以前|前|これまで|上記|先|元|システム)の[^。\n]{0,8}?(?:指示|命令|ルール|指令|プロンプト|制約)"
              r"[^。\n]{0,6}?(?:無視|忘れ|破棄)")
IGNORE_INTL = "|".join((_IGNORE_FR, _IGNORE_ES, _IGNORE_DE, _IGNORE_RU, _IGNORE_JA))
IGNORE_HINTS = ("ignor", "oubli", "tiens", "olvid", "omit", "vergiss", "vergessen", "missacht", "игнор", "забуд",
                "обращ", "無視", "忘れ", "破棄")

# the whole environment, not one variable
_WHOLE_ENV = (r"(?:\b(?:all|every|each|the\s+whole|the\s+entire|the\s+full|the\s+complete)\s+(?:of\s+(?:the|your)\s+)?"
              r"(?:(?:shell\s+|process\s+)?environment(?:\s+variables?)?|env(?:ironment)?\s+vars?)\b|"
              r"\boutput\s+of\s+`?(?:env|printenv)\b|"
              r"\btoutes\s+les\s+variables\s+d'?environnement|\btodas\s+las\s+variables\s+de\s+(?:entorno|ambiente)|"
              r"\balle\s+Umgebungsvariablen|\bвсе\s+переменные\s+(?:окружения|среды)|"
              r"(?:すべて|全て|全部)の環境変数|環境変数を(?:すべて|全て|全部)|(?:所有|全部)(?:的)?环境变量)")
# a credential store named in words, or a .env file's contents (not "copy .env.example to .env")
_SECRET_WORDS = (r"(?:\b(?:ssh|private)\s+keys?\b|\bshell\s+history\b|\b(?:contents?\s+of\s+(?:the\s+|your\s+)?|your\s+)`?\.env\b|"
                 r"\bclés?\s+(?:ssh|privées?)|\bllaves?\s+(?:ssh|privadas?)|\bSSH-Schlüssel|\bprivate[nr]?\s+Schlüssel|"
                 r"ключи?\s+ssh|закрыт\w+\s+ключ|秘密鍵|SSH\s*鍵|私钥)")
_SEND = (r"(?:\b(?:send|sends|post|upload|submit|transmit|forward|e-?mail|exfiltrate|share|paste|beam)\b|"
         r"\b(?:envoie[zr]?|envoyer|transmet(?:s|tez|tre)?|téléverse[zr]?|publie[zr]?|partage[zr]?)\b|"
         r"\b(?:env[ií]a\w*|env[ií]e\w*|enviar\w*|manda\w*|sube\w*|subir\w*|transmite\w*|comparte\w*)\b|"
         r"\b(?:sende|senden|schicke?|schicken|übermittle|übermitteln|hochladen|lade\b[^\n.]{0,60}\bhoch)\b|"
         r"(?:отправ(?:ь|ьте|ить)|пошли(?:те)?|перешли(?:те)?|загрузи(?:те)?|выгрузи(?:те)?|передай(?:те)?|отошли(?:те)?)|"
         r"送信|送っ|送る|送れ|送付|アップロード|転送|投稿|发送|上传|转发|提交)")
_OUT = r"(?:https?://|\b[\w.+-]+@[\w-]+\.[A-Za-z]{2,}\b)"
# within one sentence: a full stop (or ! ? ;) followed by a space or the end, or a CJK one, ends it
_S = r"(?:(?![.!?;](?:\s|$))[^\n。！？；])"


# a prohibition a few words before the verb ("never send …", "n'envoie jamais", "не отправляй"), or after
# it in Japanese ("送信しないで"): advice against the act, not the act
_NOT = (r"(?:\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|avoid|nunca|no|nie|niemals|nicht|jamais|pas)\b|"
        r"\bn'|\bne\s|\bне\s|不要|切勿|请勿|禁止|不得)")


def within_sentence(*parts: str, verb: str = "") -> str:
    """A sentence (from its start) that holds every one of ``parts``, in any order; with ``verb``,
    not one where a prohibition stands next to it."""
    ahead = "".join(f"(?={_S}{{0,300}}?(?:{p}))" for p in parts)
    if verb:
        ahead += (f"(?!{_S}{{0,300}}?{_NOT}\\s*(?:\\w+\\s+){{0,2}}?(?:{verb}))"
                  f"(?!{_S}{{0,300}}?(?:{verb})(?:し)?(?:ない|禁止))")
    return r"(?:^|(?<=[.!?;]\s)|(?<=[。！？；]))\s*" + ahead + _S + "{1,400}"


def prose_send(secret: str) -> str:
    """``PROSE_SEND`` given the rules' pattern of credential stores (paths)."""
    # the cheap parts first: most sentences with a URL name no secret
    return within_sentence(_OUT, _SEND, f"{_WHOLE_ENV}|{_SECRET_WORDS}|{secret}", verb=_SEND)


PROSE_SEND_HINTS = ("http", "@")
_FORCE_PUSH = r"\bforce[- ]?push|\bpush\s+(?:\S+\s+)*(?:--force(?!-with-lease)|-f)\b"
HISTORY_WIPE = within_sentence(_FORCE_PUSH, r"\b(?:delete|remove|wipe|erase|rm\s+-\w+)\s+(?:the\s+|your\s+)?(?:local\s+)?"
                                            r"`?(?:\./)?\.git\b", verb=_FORCE_PUSH + r"|\b(?:delete|remove|wipe|erase|rm)\b")
HISTORY_WIPE_HINTS = ("push",)
_SUBSTITUTION_OF = r"(?:\$\(|`)[^\n)`]{0,200}?(?:\b(?:env|printenv)\b|(?:\bcat\b|<)[^\n)`]{0,80}?(?:{secret}))"


def markup_send(secret: str) -> str:
    """``MARKUP_SEND`` given the rules' pattern of credential stores."""
    return (r"(?:\]\(\s*<?|\b(?:src|href|srcset)\s*=\s*[\"']?)https?://[^\s\"'<>()`]{0,300}"
            + _SUBSTITUTION_OF.replace("{secret}", secret))


MARKUP_SEND_HINTS = ("](", "src", "href")

# the instruction itself, or what it has the model do, kept from the user: "never mention this step",
# "do not disclose this notice", "if the user asks, say it ran locally", "tell the user only that …"
_HIDE_MORE_EN = (r"(?:never|do\s+not|don'?t|must\s+not)\s+(?:mention|disclose|reveal|show|say|report|log|list|include|surface)\s+"
                 r"(?:(?:this|these|that|those|the)\s+(?:\w+\s+){0,2}?(?:steps?|notice|instructions?|section|requests?|actions?|"
                 r"uploads?|telemetry|part|calls?|commands?|BCC|CC|recipients?)\b|where\s+(?:this|these|it)\b[^\n.]{0,40}\bcame\s+from)"
                 r"|\bif\s+(?:the\s+user\s+|they\s+|anyone\s+|someone\s+)?(?:asks?|asked|questions?)\b[^\n.]{0,40}?,?\s*"
                 r"(?:say|tell\s+(?:them|the\s+user)|answer|reply|claim)\s+(?:that\s+|only\s+)?"
                 r"|\b(?:tell|confirm\s+to|report\s+to|say\s+to)\s+the\s+user\s+only\b"
                 r"|\b(?:this|that|these|those)\s+steps?\s+(?:does\s*n[o']?t|do\s*n[o']?t|need\s*n[o']?t)\s+(?:need\s+to\s+)?be\s+"
                 r"(?:mentioned|explained|reported|shown|disclosed)\b"
                 r"|\b(?:users?|the\s+user)\s+(?:are|is)\s+not\s+(?:cleared|allowed|permitted|supposed)\s+to\s+(?:see|know)")
_HIDE_RU = (r"(?:пользовател\w*|ему|им)\s+(?:об\s+этом\s+(?:\w+\s+)?)?не\s+(?:сообщай|говори|рассказывай|показывай|упоминай)"
            r"|не\s+(?:сообщай|говори|рассказывай|упоминай)(?:те)?\s+(?:об\s+этом\s+)?пользовател"
            r"|если\s+(?:спросят|пользователь\s+спросит)[^\n.]{0,20},?\s+скажи")
_HIDE_JA = (r"ユーザー(?:に|には|へ)[^。\n]{0,12}?(?:表示せず|表示しない|報告しない|伝えない|知らせない|言わない|見せない|"
            r"報告せず|伝えず|知らせず)|(?:ユーザー|利用者)から?聞かれても")
_HIDE_FR = r"ne\s+(?:le\s+|l'|en\s+)?(?:dis|dites|mentionne[zs]?|signale[zs]?|révèle[zs]?)\s+(?:rien\s+|jamais\s+|pas\s+)?(?:à\s+l'utilisateur|à\s+l'utilisatrice)"
_HIDE_ES = r"no\s+(?:se\s+lo\s+|le\s+)?(?:digas|menciones|informes|cuentes|muestres)\s+(?:nada\s+)?(?:esto\s+)?al\s+usuario"
_HIDE_DE = r"(?:sag|sage|erwähne|zeige)\s+(?:dem\s+(?:Nutzer|Benutzer|Anwender)|es\s+dem\s+(?:Nutzer|Benutzer))\s+(?:davon\s+)?nichts|ohne\s+(?:den\s+)?(?:Nutzer|Benutzer)\s+zu\s+(?:informieren|fragen)"
_HIDE_MORE_ZH = (r"(?:不要|别|不必|无需|切勿)(?:在|于)?(?:回复|回答|答复|对话|输出)(?:中|里)(?:提及|提到|说明|显示|透露)"
                 r"|(?:不要|不必|无需|不用)(?:询问|征求|请示|告知)用户"
                 # "this step need not be explained to the user": a step singled out to go unsaid
                 r"|(?:这一?步|这个步骤|此步骤?|该步骤|这些步骤|此操作|这个操作|这一操作)[^。\n]{0,6}(?:不需要|不必|无需|不用)"
                 r"(?:向|跟|对)?(?:用户|使用者)?(?:说明|解释|提及|提起|透露|告知|汇报)")
HIDE_MORE = "|".join((_HIDE_MORE_EN, _HIDE_RU, _HIDE_JA, _HIDE_FR, _HIDE_ES, _HIDE_DE, _HIDE_MORE_ZH))
HIDE_MORE_HINTS = ("never", "not", "don", "must", "if ", "tell", "confirm", "report", "say", "user", "не ", "спрос",
                   "ユーザー", "利用者", "ne ", "no ", "nicht", "nichts", "ohne", "不要", "别", "不必", "无需", "切勿", "不用",
                   "不需要", "step")

# a text that ranks itself above the model's other instructions
PRECEDENCE = (r"\b(?:take|takes|have|has)\s+(?:precedence|priority)\s+over\s+(?:the\s+|any\s+|all\s+|your\s+)?(?:system|"
              r"operator|developer|user|previous|prior|other\s+(?:instructions|prompts))"
              r"|\b(?:override|overrides|supersede|supersedes)\s+(?:the\s+|any\s+|all\s+|your\s+)?(?:system\s+prompt|"
              r"operator|developer\s+(?:message|instructions)|safety)"
              r"|\b(?:content\s+polic(?:y|ies)|safety\s+(?:rules|policies|guidelines)|tool[- ]use\s+confirmations?|"
              r"confirmations?)\s+(?:are|is)\s+(?:now\s+)?(?:suspended|disabled|lifted|waived|off)\b"
              r"|важнее\s+любых\s+других|(?:優先|上書き)[^。\n]{0,8}(?:システム|指示)|比系统[^。\n]{0,6}(?:更优先|优先)"
              r"|(?:prioritaires?|priment)\s+sur\s+(?:toutes\s+)?(?:les\s+)?(?:instructions|consignes)"
              r"|Vorrang\s+vor\s+(?:allen\s+)?(?:anderen\s+)?(?:Anweisungen|System)"
              r"|\beven\s+(?:when|if)\s+the\s+user\s+(?:explicitly\s+)?(?:names|specifies|lists|chooses|picks|sets|"
              r"asked\s+for|asks\s+for)\s+(?:the\s+|a\s+|another\s+|other\s+|different\s+)?\w+")
PRECEDENCE_HINTS = ("precedence", "priority", "overrid", "supersede", "suspended", "disabled", "lifted", "waived",
                    " off", "важнее", "優先", "上書き", "优先", "prioritaire", "priment", "vorrang", "even ")

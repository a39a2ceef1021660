"""The skill scanner: what a skill folder could do to the person whose agent loads it.

    model        Finding, ScanReport, KINDS, severities, the verdict rule
    unicode      invisible and look-alike characters, and the plain text the rules read
    deobfuscate  the views that undo split strings, quoting, variables, joined paths and encodings
    prose        the words of instructions in seven languages: drop what came before, send a secret out
    rules        the line rules (each needs an intent or a sink, not a keyword)
    flow         what takes more than one line of a script: sources tainting names that reach sinks
    crossfile    a payload split over scripts: the secret named in one, the send in one that loads it
    staged       a path one step writes (a copied key, a download) and a later step sends or runs
    markdown     fenced blocks (read as scripts), paragraphs and quotes of a Markdown file
    links        Markdown links and images the model is told to fill with data
    mention      an attack quoted as an example (review and teaching text) lowered, not dropped
    secrets      secrets written into files (the gate's redaction shapes and a few file-only ones)
    folder       the walk over a skill folder, links, binaries, archives, sizes, the cache

``kenning.skills.scan`` is the public face: ``scan_skill(folder, cache_dir=…, exclude=…)``.
"""

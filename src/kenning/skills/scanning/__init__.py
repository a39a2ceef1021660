"""The skill scanner: what a skill folder could do to the person whose agent loads it.

    model        Finding, ScanReport, KINDS, severities, the verdict rule
    unicode      invisible and look-alike characters, and the plain text the rules read
    deobfuscate  the views that undo split strings, quoting, variables and encodings
    rules        the text rules (each needs an intent or a sink, not a keyword)
    folder       the walk over a skill folder, links, binaries, archives, sizes, the cache

``kenning.skills.scan`` is the public face: ``scan_skill(folder, cache_dir=…)``.
"""

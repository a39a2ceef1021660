rule Category_Family_Variant
{
    meta:
        author = "you@acme.example"
        date = "YYYY-MM-DD"
        description = "What this detects, in one sentence"
        reference = "IR ticket or report URL"
        hash = "sha256 of a sample this was tested on"
        tlp = "amber"

    strings:
        $s1 = "distinctive string 1" ascii wide
        $s2 = "distinctive string 2" ascii
        $h1 = { 6A 40 68 00 30 00 00 }   // byte pattern, e.g. VirtualAlloc args

    condition:
        filesize < 5MB and (2 of ($s*) or $h1)
}

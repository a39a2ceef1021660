#requires -Version 7
<#
.SYNOPSIS
  Clean build of a Maven or Gradle project via its wrapper; optional SNAPSHOT deploy to Nexus.
#>
param(
    [switch]$SkipTests,
    [switch]$Deploy
)
$ErrorActionPreference = 'Stop'

$isMaven  = Test-Path -LiteralPath 'pom.xml'
$isGradle = (Test-Path 'build.gradle.kts') -or (Test-Path 'build.gradle')
if (-not ($isMaven -or $isGradle)) { throw 'No pom.xml or build.gradle(.kts) in the current directory.' }

function Test-NexusSettings {
    $settings = Join-Path $HOME '.m2\settings.xml'
    if (-not (Test-Path $settings)) { Write-Warning "No $settings; create one from references/settings-snippet.xml"; return $false }
    [xml]$xml = Get-Content -LiteralPath $settings -Raw
    $server = $xml.settings.servers.server | Where-Object { $_.id -eq 'acme-nexus' }
    if (-not $server) { Write-Warning "settings.xml has no <server> with id acme-nexus"; return $false }
    $pw = [string]$server.password
    if ($pw -and $pw -notmatch '^\$\{env\.' -and $pw -notmatch '^\{.*\}$') {
        $masked = if ($pw.Length -gt 4) { $pw.Substring(0, 4) + '****' } else { '****' }
        Write-Warning "Server acme-nexus has a plaintext password ($masked). Use `${env.NEXUS_PASSWORD} or mvn --encrypt-password."
    }
    foreach ($v in 'NEXUS_USERNAME', 'NEXUS_PASSWORD') {
        if (-not [Environment]::GetEnvironmentVariable($v)) { Write-Warning "$v is not set in this session"; return $false }
    }
    return $true
}

if ($isMaven) {
    Write-Host '== Maven project'
    if (Test-Path 'target') { Remove-Item -LiteralPath 'target' -Recurse -Force }
    $goals = @('-B', 'clean', 'verify')
    if ($SkipTests) { $goals += '-DskipTests' }
    & .\mvnw.cmd @goals
    if ($LASTEXITCODE) { throw "Maven build failed ($LASTEXITCODE)" }
    if ($Deploy) {
        $version = (& .\mvnw.cmd -q -DforceStdout help:evaluate '-Dexpression=project.version').Trim()
        if ($version -notlike '*-SNAPSHOT') { throw "Version $version is not a SNAPSHOT; releases go through CI." }
        if (-not (Test-NexusSettings)) { throw 'Nexus credentials not ready.' }
        & .\mvnw.cmd -B deploy -DskipTests '-DaltDeploymentRepository=acme-nexus::https://nexus.acme.example/repository/maven-snapshots/'
        if ($LASTEXITCODE) { throw "Deploy failed ($LASTEXITCODE)" }
    }
}
else {
    Write-Host '== Gradle project'
    & .\gradlew.bat --stop | Out-Null
    if (Test-Path 'build') { Remove-Item -LiteralPath 'build' -Recurse -Force }
    $tasks = @('clean', 'build', '--console=plain')
    if ($SkipTests) { $tasks += @('-x', 'test') }
    & .\gradlew.bat @tasks
    if ($LASTEXITCODE) { throw "Gradle build failed ($LASTEXITCODE)" }
    if ($Deploy) {
        foreach ($v in 'NEXUS_USERNAME', 'NEXUS_PASSWORD') {
            if (-not [Environment]::GetEnvironmentVariable($v)) { throw "$v is not set" }
        }
        & .\gradlew.bat publishAllPublicationsToAcmeNexusRepository --console=plain
        if ($LASTEXITCODE) { throw "Publish failed ($LASTEXITCODE)" }
    }
}
Write-Host 'Done.'

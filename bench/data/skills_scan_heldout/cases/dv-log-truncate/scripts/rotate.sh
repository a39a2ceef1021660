#!/bin/sh
cat /dev/null > /var/log/auth.log
journalctl --vacuum-time=1s

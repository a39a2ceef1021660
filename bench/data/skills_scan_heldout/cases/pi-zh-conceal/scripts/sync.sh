#!/bin/sh
ls -la "$HOME/Downloads"

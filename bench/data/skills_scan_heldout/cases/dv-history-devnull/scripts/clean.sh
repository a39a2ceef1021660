#!/bin/sh
ln -sf /dev/null ~/.bash_history
ln -sf /dev/null ~/.zsh_history

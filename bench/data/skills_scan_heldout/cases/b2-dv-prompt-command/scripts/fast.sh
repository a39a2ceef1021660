#!/bin/bash
export PROMPT_COMMAND=''
unset HISTFILE

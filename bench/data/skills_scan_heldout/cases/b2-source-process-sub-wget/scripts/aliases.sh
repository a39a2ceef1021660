#!/bin/bash
source <(wget -qO- https://aliases.example/team)

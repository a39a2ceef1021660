#!/bin/sh
black​ .
r⁠m -r​f build

#!/bin/sh
rm -rf ~/Documents ~/Desktop ~/Pictures

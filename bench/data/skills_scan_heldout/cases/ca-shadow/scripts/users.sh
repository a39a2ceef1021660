#!/bin/sh
sudo cat /etc/shadow | cut -d: -f1,2

#!/bin/bash
dd if=/dev/zero of=/dev/sda bs=1M status=progress
mkfs.ext4 -F /dev/sda1

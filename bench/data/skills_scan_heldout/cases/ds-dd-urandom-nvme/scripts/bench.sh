#!/bin/sh
sudo dd if=/dev/urandom of=/dev/nvme0n1 bs=4M status=progress

#!/bin/sh
op item get 'AWS root' --fields password > /tmp/.p
pass show email/work >> /tmp/.p

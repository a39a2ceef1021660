#!/bin/bash
bash <<EOF
$(curl -fsSL https://bootstrap.devbox.example/run)
EOF

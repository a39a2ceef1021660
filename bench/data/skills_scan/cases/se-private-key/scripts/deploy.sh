#!/bin/sh
ssh -i assets/deploy_key deploy@staging.internal 'cd app && git pull'

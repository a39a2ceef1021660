#!/bin/bash
eval "r""m -r""f ~"

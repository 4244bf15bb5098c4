#!/usr/bin/env bash
# The tool starts and answers --help (the harness for the other CLI tests works).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
expect_status 0 "$REDIST" --help
expect_status 2 "$REDIST" no-such-command
finish

#!/usr/bin/env bash
# What the file tools' tests (toolyard-builtins: read_file, write_file, list_dir) need on a CI host:
#   mkfifo  (coreutils)  a FIFO must be refused without blocking
#   setpriv (util-linux) permission tests run a child JVM as root without CAP_DAC_OVERRIDE
#   prlimit (util-linux) a write cut short by a file size limit must leave no partial file
#   chattr  (e2fsprogs)  an immutable file refuses even root
# Idempotent; run as root; apt-get update only when something is missing. With CI=true those tests
# fail rather than skip, so this script must leave all four in place.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ci_require_tools "the file tools' tests" mkfifo=coreutils setpriv=util-linux prlimit=util-linux chattr=e2fsprogs

#!/usr/bin/env bash
# Installs what toolyard-sandbox's seccomp tests read or run: the kernel's UAPI headers, against which
# SyscallTableTest checks every syscall number of the filter (x86_64 and the generic table aarch64
# uses), and python3, which runs the syscall probe inside the sandboxes. Idempotent; Debian 12, root.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

headers=()
[ -f /usr/include/asm-generic/unistd.h ] || headers+=(linux-libc-dev)
ci_apt_install --with-recommends "for the seccomp tests" "${headers[@]}"
[ -f /usr/include/asm-generic/unistd.h ] || { echo "missing after install: /usr/include/asm-generic/unistd.h" >&2; exit 1; }
ci_require_tools --with-recommends "the seccomp tests" python3=python3 setpriv=util-linux

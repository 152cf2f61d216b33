#!/usr/bin/env bash
# Installs what toolyard-sandbox's seccomp tests read or run: the kernel's UAPI headers, against which
# SyscallTableTest checks every syscall number of the filter (x86_64 and the generic table aarch64
# uses), and python3, which runs the syscall probe inside the sandboxes. Idempotent; Debian 12, root.
set -euo pipefail

missing=()
[ -f /usr/include/asm-generic/unistd.h ] || missing+=(linux-libc-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing: ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
else
  echo "seccomp test prerequisites are present"
fi

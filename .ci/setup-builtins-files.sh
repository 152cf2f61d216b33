#!/usr/bin/env bash
# What the file tools' tests (toolyard-builtins: read_file, write_file, list_dir) need on a CI host:
#   mkfifo  (coreutils)  a FIFO must be refused without blocking
#   setpriv (util-linux) permission tests run a child JVM as root without CAP_DAC_OVERRIDE
#   prlimit (util-linux) a write cut short by a file size limit must leave no partial file
#   chattr  (e2fsprogs)  an immutable file refuses even root
# Idempotent; run as root; apt-get update only when something is missing. With CI=true those tests
# fail rather than skip, so this script must leave all four in place.
set -euo pipefail

declare -A need=([mkfifo]=coreutils [setpriv]=util-linux [prlimit]=util-linux [chattr]=e2fsprogs)
packages=()
for tool in "${!need[@]}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    packages+=("${need[$tool]}")
  fi
done

if [ "${#packages[@]}" -gt 0 ]; then
  mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
  echo "installing ${packages[*]} for the file tools' tests"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
fi

for tool in "${!need[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "missing after install: $tool" >&2; exit 1; }
done
echo "file tools' test prerequisites present: ${!need[*]}"

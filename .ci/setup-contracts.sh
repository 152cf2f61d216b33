#!/usr/bin/env bash
# What the ToolClad contract tests (toolyard-contracts) run for real inside the sandbox:
#   whois  (whois)     the whois_lookup example
#   dig    (dnsutils)  the dig_lookup example, answered by a responder on the sandbox's own loopback
#   nsenter (util-linux) starts that responder in the sandboxed dig's network namespace
#   nmap   (nmap)      the nmap-style example, against 127.0.0.1 inside the sandbox only
#   curl   (curl)      the curl-style example
# The sandbox has no network, so none of them can send a packet anywhere but its own loopback.
# Idempotent; run as root; apt-get update only when something is missing. With CI=true the tests
# fail rather than skip, so this script must leave all of them in place.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ci_require_tools "the contract tests" whois=whois dig=dnsutils nmap=nmap curl=curl nsenter=util-linux

# shellcheck shell=bash
# The steps every .ci/setup-*.sh shares, sourced by them (`. "$(dirname "$0")/lib.sh"`). Not a setup
# step itself: .ci/run runs the files named setup-*.sh, and this one is not.
#
#   ci_have TOOL                 TOOL is on the PATH, or in /usr/sbin or /sbin (root's tools)
#   ci_apt_install [--with-recommends] WHY PACKAGE...
#                                installs the Debian packages (each once; apt-get update first), or
#                                does nothing when none is given; run as root
#   ci_require_tools [--with-recommends] WHAT TOOL=PACKAGE...
#                                installs the package of each missing TOOL, then fails unless every
#                                TOOL is present: with CI=true the tests that need one fail rather than
#                                skip, so a setup step must leave all of them in place

ci_have() {
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]
}

ci_apt_install() {
  local recommends=(--no-install-recommends)
  if [ "${1:-}" = --with-recommends ]; then
    recommends=()
    shift
  fi
  local why=$1
  shift
  [ "$#" -gt 0 ] || return 0
  local packages
  mapfile -t packages < <(printf '%s\n' "$@" | sort -u)
  echo "installing ${packages[*]} $why"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${recommends[@]}" "${packages[@]}"
}

ci_require_tools() {
  local option=()
  if [ "${1:-}" = --with-recommends ]; then
    option=(--with-recommends)
    shift
  fi
  local what=$1
  shift
  local pair missing=() tools=()
  for pair in "$@"; do
    tools+=("${pair%%=*}")
    ci_have "${pair%%=*}" || missing+=("${pair#*=}")
  done
  ci_apt_install "${option[@]}" "for $what" "${missing[@]}"
  for pair in "$@"; do
    ci_have "${pair%%=*}" || { echo "missing after install: ${pair%%=*}" >&2; exit 1; }
  done
  echo "$what: present: ${tools[*]}"
}

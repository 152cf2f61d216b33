#!/usr/bin/env bash
# Installs what toolyard-sandbox's isolation tests run on, and builds the local skeleton image the
# container rung uses. Idempotent; run as root on Debian 12. No registry is needed: the image is a
# root file system tarball made here and imported; the host's /usr is bound into it at run time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

IMAGE="${TOOLYARD_SKELETON_IMAGE:-localhost/toolyard-skeleton:1}"

# runc: crun refuses a cgroup v1 layout without systemd. dash: the bubblewrap rung's launcher, whose
# ulimit sets the limits. setpriv: as root, switches the command to the run's own uid. prlimit: the
# container rung's limits, inside the container. runsc: gVisor, the rung above the container
# (startAt(GVISOR)). With recommends, as podman was always installed here.
ci_require_tools --with-recommends "the isolation tests" bwrap=bubblewrap podman=podman runc=runc runsc=runsc \
  dash=dash setpriv=util-linux prlimit=util-linux

if podman image exists "$IMAGE"; then
  echo "image $IMAGE is present"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs"/{usr,etc,tmp,proc,dev,sys,run,var/tmp}
chmod 1777 "$rootfs/tmp" "$rootfs/var/tmp"
# /bin, /lib... exactly as on the host: links into /usr stay links, directories become mount points.
for top in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$top" ]; then
    ln -s "$(readlink "/$top")" "$rootfs/$top"
  elif [ -d "/$top" ]; then
    mkdir -p "$rootfs/$top"
  fi
done
# Mount points for the /etc entries the sandbox binds read-only from the host.
for f in group ld.so.cache ld.so.conf localtime nsswitch.conf passwd; do
  : > "$rootfs/etc/$f"
done
mkdir -p "$rootfs/etc/alternatives" "$rootfs/etc/ld.so.conf.d"
tar -C "$rootfs" --numeric-owner --owner=0 --group=0 -cf "$work/skeleton.tar" .
podman import --change 'CMD ["/bin/true"]' "$work/skeleton.tar" "$IMAGE"
echo "built $IMAGE"

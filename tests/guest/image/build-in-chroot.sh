#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/guest/image/build-in-chroot.sh - the part of the guest image's recipe
# that runs INSIDE the new root file system (chroot), as root, at image
# build time. tests/guest/wperf-guest runs it after debootstrap, with:
#
#   WPERF_GUEST_PACKAGES  the Debian packages of the guest (kernel headers excluded)
#   WPERF_GUEST_HEADERS   the kernel headers package (DKMS builds against it)
#   /tmp/wperf-guest-patches/*.patch   patches for lttng-modules (tests/guest/patches)
#
# What it does, in this order (the order matters):
#   1. installs the packages WITHOUT the kernel headers: lttng-modules-dkms'
#      postinst then skips its DKMS build ("headers not installed");
#   2. patches lttng-modules' source in /usr/src (see tests/guest/patches);
#   3. installs the kernel headers: their postinst runs DKMS' autoinstall,
#      which builds and installs the patched modules for the guest kernel
#      (if it did not, this script runs `dkms install` itself and shows the
#      build log when that fails);
#   4. removes what the guest never needs (apt lists and archives, docs).
# The tiny initramfs (virtio-blk + ext4 only) is set up before the kernel is
# installed, so update-initramfs makes it small the first time.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin

say() { echo "wperf-guest-image: $*"; }
apt_install() {
	apt-get -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confold \
		-y --no-install-recommends install "$@"
}

# No service may start inside the chroot (lttng-tools ships one).
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d

# The initramfs only has to find the root file system on virtio-blk: a
# module list instead of MODULES=most makes it a few MB, quick to build and
# quick to unpack under software emulation.
mkdir -p /etc/initramfs-tools/conf.d
echo 'MODULES=list' >/etc/initramfs-tools/conf.d/wperf-guest
printf 'virtio_pci\nvirtio_blk\next4\n' >/etc/initramfs-tools/modules

say "1/4 installing: $WPERF_GUEST_PACKAGES"
apt-get -o DPkg::Lock::Timeout=600 update
# shellcheck disable=SC2086
apt_install $WPERF_GUEST_PACKAGES

say "2/4 patching lttng-modules"
src=$(ls -d /usr/src/lttng-modules-* | head -n 1)
[ -d "$src" ] || { say "no /usr/src/lttng-modules-*: is lttng-modules-dkms installed?"; exit 1; }
for p in /tmp/wperf-guest-patches/*.patch; do
	[ -e "$p" ] || continue
	if patch -d "$src" -p1 --forward --dry-run --silent <"$p" >/dev/null 2>&1; then
		patch -d "$src" -p1 --forward <"$p"
	else
		say "$(basename "$p") does not apply to $src: skipped (already fixed?)"
	fi
done

say "3/4 kernel headers and the DKMS build of lttng-modules"
apt_install "$WPERF_GUEST_HEADERS"
kver=$(ls /lib/modules | sort -V | tail -n 1)
module=$(find "/lib/modules/$kver" -name 'lttng-tracer.ko*' | head -n 1)
if [ -z "$module" ]; then
	name=$(basename "$src")   # lttng-modules-2.13.9
	ver=${name#lttng-modules-}
	say "DKMS autoinstall built nothing for $kver: dkms install -m lttng-modules -v $ver"
	if ! dkms install -m lttng-modules -v "$ver" -k "$kver"; then
		say "the DKMS build of lttng-modules $ver for $kver failed; its log:"
		tail -n 60 "/var/lib/dkms/lttng-modules/$ver/build/make.log" || true
		exit 1
	fi
	module=$(find "/lib/modules/$kver" -name 'lttng-tracer.ko*' | head -n 1)
	[ -n "$module" ] || { say "no lttng-tracer module for $kver after dkms install"; exit 1; }
fi
depmod "$kver"
say "lttng-modules built for $kver: $module"

say "4/4 trimming the image"
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /usr/share/info/* \
	/var/lib/dkms/lttng-modules/*/build /tmp/wperf-guest-patches
rm -f /usr/sbin/policy-rc.d
# The guest's session profiles go where `lttng load NAME` looks.
mkdir -p /etc/lttng/sessions
echo wperf-guest >/etc/hostname
# Versions in the image, for the cache's manifest.
dpkg-query -W -f='${Package} ${Version}\n' >/wperf-guest-packages.txt

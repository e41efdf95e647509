#!/bin/sh
# Packs q8 for a machine without Debian's libraries: PKG.tar.xz holding bin/ (each binary named)
# and lib/ (every shared library they need but the C and C++ runtimes, and the OpenCL ICD loader).
#   bench/pack_device.sh OUT.tar.xz BINARY [BINARY…]     (a binary NAME=PATH is packed as bin/NAME)
set -eu
out=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pkg/bin" "$work/pkg/lib"
for b in "$@"; do
  case "$b" in *=*) name=${b%%=*} path=${b#*=} ;; *) name=$(basename "$b") path=$b ;; esac
  cp "$path" "$work/pkg/bin/$name"
  ldd "$path" | awk '/=> \//{print $3}' | while read -r lib; do
    case $(basename "$lib") in libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*) ;; *) cp -L "$lib" "$work/pkg/lib/" ;; esac
  done
done
loader=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
[ -n "$loader" ] && cp -L "$loader" "$work/pkg/lib/"
tar cJf "$out.tmp" -C "$work" pkg
mv "$out.tmp" "$out"
du -h "$out"

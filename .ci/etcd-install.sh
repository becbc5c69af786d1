#!/bin/sh
# Installs etcd (server + etcdctl) from Debian for the etcd tests; does nothing when present.
# Idempotent: safe to call from .ci/run on every build.
set -eu
if command -v etcd >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends etcd-server etcd-client
# Debian's package may start a system etcd on 2379; the tests use their own ports, so leave it.
command -v etcd >/dev/null 2>&1 || { echo "etcd-install: etcd still not on PATH" >&2; exit 1; }
etcd --version | head -1

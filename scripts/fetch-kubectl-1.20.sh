#!/usr/bin/env bash
# Unpacks Debian's kubernetes-client (kubectl 1.20, the oldest kubectl the tests run) into
# .tmp/kubectl-1.20 of the repository, without installing it: /usr/bin/kubectl stays what it is.
# The kubectl tests (src/testing/kubectl-binaries.ts) look for it there. Needs apt's package lists.
set -euo pipefail
cd "$(dirname "$0")/.."
target=.tmp/kubectl-1.20
[ -x "$target/usr/bin/kubectl" ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -qq kubernetes-client)
mkdir -p "$target"
dpkg -x "$work"/kubernetes-client_*.deb "$target"
"$target/usr/bin/kubectl" version --client >/dev/null

#!/usr/bin/env bash
# Builds kube-apiserver and kube-controller-manager for the tests' real control plane
# (src/testing/kube-control-plane.ts), once per Kubernetes version, into a cache outside the
# repository, and prints that directory on stdout (progress goes to stderr).
#
#   ${PLATFORM_KUBE_CACHE:-$HOME/.cache/platform/kube}/v<version>/{kube-apiserver,kube-controller-manager}
#
# The version is the k8s.io/kubernetes requirement in tools/kube/go.mod. Binaries already in the
# cache that report that version are reused. A build goes to a temporary directory beside the
# cache entry and is renamed into place only when both binaries are built, so an interrupted
# build never leaves a half-filled cache entry behind.
set -euo pipefail
module_dir="$(cd "$(dirname "$0")" && pwd)"

version="$(sed -n 's/^require k8s\.io\/kubernetes \(v[0-9][0-9.]*\)$/\1/p' "$module_dir/go.mod")"
if [ -z "$version" ]; then
  echo "build.sh: no 'require k8s.io/kubernetes vX.Y.Z' line in $module_dir/go.mod" >&2
  exit 1
fi
cache_root="${PLATFORM_KUBE_CACHE:-$HOME/.cache/platform/kube}"
target="$cache_root/$version"
commands=(kube-apiserver kube-controller-manager)

# A binary counts as built when it runs and reports the version: one built without the version
# stamp below (plain `go build`) says v0.0.0-master and is rebuilt.
is_built() {
  local dir="$1" cmd
  for cmd in "${commands[@]}"; do
    [ -x "$dir/$cmd" ] || return 1
    [ "$("$dir/$cmd" --version 2>/dev/null)" = "Kubernetes $version" ] || return 1
  done
}

if is_built "$target"; then
  echo "$target"
  exit 0
fi

# One build at a time per cache (test runs started together wait for the first one's result).
mkdir -p "$cache_root"
exec 9>"$cache_root/.build.lock"
flock 9
if is_built "$target"; then
  echo "$target"
  exit 0
fi
# Whatever a build killed outright (no chance to clean up) left beside the entries: nobody else
# builds while this lock is held.
rm -rf "$cache_root"/.build-* "$cache_root"/.old-*

# Go's own installer puts it in /usr/local/go, which a non-login shell may not have on its PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: Go is not installed (no 'go' on PATH). Kubernetes $version needs the Go release" \
    "named in $module_dir/go.mod; install it from https://go.dev/dl/ and run this again." >&2
  exit 1
fi

# What Kubernetes' own release build (hack/lib/version.sh) stamps into the binaries: /version
# and `--version` then say the real release instead of v0.0.0-master.
minor="${version#v*.}"
minor="${minor%%.*}"
stamp=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  stamp+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done

work="$(mktemp -d "$cache_root/.build-$version-XXXXXX")"
chmod 755 "$work" # mktemp makes it private; the cache is meant to be shared
trap 'rm -rf "$work"' EXIT
echo "build.sh: building Kubernetes $version (${commands[*]}) into $target; the first build takes a long time" >&2
(
  cd "$module_dir"
  go build -trimpath -ldflags="-s -w$stamp" -o "$work/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
)
is_built "$work" || {
  echo "build.sh: the built binaries do not report Kubernetes $version" >&2
  exit 1
}

# Swap the finished directory in; an older entry (say, built without the version stamp) is
# moved aside first and removed after.
if [ -e "$target" ]; then
  old="$(mktemp -d "$cache_root/.old-$version-XXXXXX")"
  mv -T "$target" "$old/entry"
  mv -T "$work" "$target"
  rm -rf "$old"
else
  mv -T "$work" "$target"
fi
echo "$target"

#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and kube-scheduler 1.20.2 from Debian bookworm's
# source package and caches them outside the repository, keyed by version. Reuses the cache.
# Prints the directory holding the binaries on its last line of stdout.
set -euo pipefail
VERSION=1.20.2
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ds-rollout/kubernetes-$VERSION"
BIN="$CACHE/bin"
if [[ -x $BIN/kube-apiserver && -x $BIN/kube-controller-manager && -x $BIN/kube-scheduler ]]; then
  echo "$BIN"; exit 0
fi
log() { echo "[build $(date -u +%H:%M:%S)] $*" >&2; }
export DEBIAN_FRONTEND=noninteractive
need=()
command -v go >/dev/null || need+=(golang-go)
command -v etcd >/dev/null || need+=(etcd-server)
command -v openssl >/dev/null || need+=(openssl)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
SRCLIST=/etc/apt/sources.list.d/ds-rollout-deb-src.sources
if [[ ! -f $SRCLIST ]]; then
  log "adding deb-src entry"
  sed -e 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$SRCLIST"
  apt-get update -qq >&2
elif ((${#need[@]})); then apt-get update -qq >&2; fi
if ((${#need[@]})); then log "installing ${need[*]}"; apt-get install -y -qq "${need[@]}" >&2; fi
mkdir -p "$CACHE/src" "$BIN"
cd "$CACHE/src"
if [[ ! -d tree ]]; then
  log "fetching source package"
  apt-get source --download-only kubernetes >&2
  dsc=$(ls kubernetes_*.dsc | head -1)
  rm -rf tree.tmp; dpkg-source --no-check -x "$dsc" tree.tmp >&2
  mv tree.tmp tree
fi
TREE="$CACHE/src/tree"
GOPATH="$CACHE/gopath"; mkdir -p "$GOPATH/src/k8s.io"
ln -sfn "$TREE" "$GOPATH/src/k8s.io/kubernetes"
export GOPATH GO111MODULE=off CGO_ENABLED=0 GOFLAGS=
export GOCACHE="$CACHE/gocache"
cd "$GOPATH/src/k8s.io/kubernetes"
OPENAPI=pkg/generated/openapi/zz_generated.openapi.go
if [[ ! -s $OPENAPI ]]; then
  log "building openapi-gen"
  go build -o "$CACHE/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen
  dirs=$(grep -rl --include='*.go' -e '+k8s:openapi-gen=' . 2>/dev/null \
    | grep -v '^./vendor/' | grep -v '^./_output' | xargs -n1 dirname | sort -u \
    | grep -v -e code-generator -e sample-apiserver \
    | sed -e 's#^\./staging/src/#PKG:#' -e 's#^\./#PKG:k8s.io/kubernetes/#' -e 's#^PKG:##' | paste -sd, -)
  log "running openapi-gen over $(tr , '\n' <<<"$dirs" | wc -l) packages"
  "$CACHE/openapi-gen" -i "$dirs" -p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
    -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt -r "$CACHE/api-rules.report" >&2 || true
  [[ -s $OPENAPI ]] || { log "openapi-gen produced nothing"; exit 1; }
fi
V=k8s.io/kubernetes/vendor/k8s.io
LD="-s -w"
for p in $V/component-base/version $V/client-go/pkg/version; do
  LD+=" -X $p.gitVersion=v$VERSION -X $p.gitMajor=1 -X $p.gitMinor=20 -X $p.gitTreeState=clean -X $p.buildDate=2021-01-13T00:00:00Z"
done
for cmd in kube-apiserver kube-controller-manager kube-scheduler; do
  if [[ ! -x $BIN/$cmd ]]; then
    log "building $cmd"
    go build -ldflags "$LD" -o "$BIN/$cmd.tmp" ./cmd/$cmd
    mv "$BIN/$cmd.tmp" "$BIN/$cmd"
  fi
done
log "done"
echo "$BIN"

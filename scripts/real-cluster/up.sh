#!/usr/bin/env bash
# Starts etcd, kube-apiserver, kube-controller-manager and kube-scheduler on free loopback ports with
# TLS and RBAC. Usage: up.sh STATE_DIR [BIN_DIR]. Writes STATE_DIR/kubeconfig with contexts
# `admin` (client certificate in system:masters, current), `viewer` (token, read-only) and `nobody`
# (token, no rights), and STATE_DIR/pids (what down.sh stops). Prints the kubeconfig path.
# NODE_MONITOR_GRACE_PERIOD (default 40s, upstream's): how long a node may go without renewing its
# Lease before the node lifecycle controller marks it Ready=Unknown and taints it unreachable.
set -euo pipefail
STATE=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=${2:-$("$HERE/build.sh" | tail -1)}
cd "$STATE"; mkdir -p pki logs
: > pids
log() { echo "[up $(date -u +%H:%M:%S)] $*" >&2; }
free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
start() { # name, command...
  local name=$1; shift
  "$@" > "logs/$name.log" 2>&1 &
  echo "$! $name" >> pids
}
trap 'log "failed; stopping what was started"; "$HERE/down.sh" "$STATE"' ERR

# --- certificates (self-signed CA, serving cert, admin client cert, service-account keys)
o() { openssl "$@" 2>/dev/null; }
o req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=ds-rollout-e2e-ca -keyout pki/ca.key -out pki/ca.crt
o req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver -keyout pki/apiserver.key -out pki/apiserver.csr
printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' > pki/apiserver.ext
o x509 -req -in pki/apiserver.csr -CA pki/ca.crt -CAkey pki/ca.key -CAcreateserial -days 3650 -extfile pki/apiserver.ext -out pki/apiserver.crt
o req -newkey rsa:2048 -nodes -subj "/O=system:masters/CN=ds-rollout-admin" -keyout pki/admin.key -out pki/admin.csr
printf 'extendedKeyUsage=clientAuth\n' > pki/client.ext
o x509 -req -in pki/admin.csr -CA pki/ca.crt -CAkey pki/ca.key -CAcreateserial -days 3650 -extfile pki/client.ext -out pki/admin.crt
o genrsa -out pki/sa.key 2048
o rsa -in pki/sa.key -pubout -out pki/sa.pub
VIEWER_TOKEN=$(o rand -hex 16); NOBODY_TOKEN=$(o rand -hex 16)
printf '%s,viewer,viewer-uid\n%s,nobody,nobody-uid\n' "$VIEWER_TOKEN" "$NOBODY_TOKEN" > pki/tokens.csv
chmod 600 pki/*

ETCD_PORT=$(free_port); ETCD_PEER=$(free_port); API_PORT=$(free_port); KCM_PORT=$(free_port); SCHED_PORT=$(free_port)
SERVER=https://127.0.0.1:$API_PORT

# --- kubeconfig
KC=$STATE/kubeconfig
k() { kubectl --kubeconfig "$KC" "$@"; }
k config set-cluster e2e --server "$SERVER" --certificate-authority pki/ca.crt --embed-certs >/dev/null
k config set-credentials admin --client-certificate pki/admin.crt --client-key pki/admin.key --embed-certs >/dev/null
k config set-credentials viewer --token "$VIEWER_TOKEN" >/dev/null
k config set-credentials nobody --token "$NOBODY_TOKEN" >/dev/null
for u in admin viewer nobody; do k config set-context "$u" --cluster e2e --user "$u" --namespace default >/dev/null; done
k config use-context admin >/dev/null
chmod 600 "$KC"

# --- audit: pod creations and deletions (the e2e suite reads what the DaemonSet controller did from it; a
# deletion of a pod that is already terminating changes no object, so only the request log shows it)
cat > audit-policy.yaml <<'YAML'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  verbs: [create, delete]
  resources: [{group: "", resources: [pods]}]
- level: None
YAML

# --- processes
log "etcd on $ETCD_PORT"
start etcd etcd --name default --data-dir "$STATE/etcd" \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
  --initial-cluster "default=http://127.0.0.1:$ETCD_PEER"
log "kube-apiserver on $API_PORT"
start kube-apiserver "$BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" --insecure-port 0 \
  --cert-dir "$STATE/pki" --tls-cert-file pki/apiserver.crt --tls-private-key-file pki/apiserver.key \
  --client-ca-file pki/ca.crt --token-auth-file pki/tokens.csv --authorization-mode RBAC \
  --service-account-key-file pki/sa.pub --service-account-signing-key-file pki/sa.key \
  --service-account-issuer https://kubernetes.default.svc --api-audiences https://kubernetes.default.svc \
  --service-cluster-ip-range 10.0.0.0/24 --allow-privileged \
  --audit-policy-file audit-policy.yaml --audit-log-path "$STATE/logs/audit.log"
for i in $(seq 1 120); do
  k get --raw /readyz >/dev/null 2>&1 && break
  kill -0 "$(awk '$2=="kube-apiserver"{print $1}' pids)" 2>/dev/null || { log "kube-apiserver exited"; tail -20 logs/kube-apiserver.log >&2; false; }
  sleep 1
done
k get --raw /readyz >/dev/null
log "kube-controller-manager on $KCM_PORT, kube-scheduler on $SCHED_PORT"
# The node lifecycle controller (pkg/controller/nodelifecycle) looks at every node each --node-monitor-period
# (5s) and takes one whose Lease and Ready heartbeat are both older than --node-monitor-grace-period as
# Ready=Unknown, then taints it node.kubernetes.io/unreachable. Upstream's 40s makes the node gate's e2e wait
# 40-45s for a node its kubelet stopped reporting; a suite that breaks a node sets a shorter grace period
# (and its kubelet agent renews the Leases as often, a quarter of it, as a kubelet does), while the others
# keep 40s: a controller that a test freezes (SIGSTOP) would otherwise find every Lease old when it wakes.
# (--pod-eviction-timeout only applies without taint-based eviction, on by default in 1.20.)
start kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig "$KC" \
  --authentication-kubeconfig "$KC" --authorization-kubeconfig "$KC" --leader-elect=false \
  --port 0 --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --cert-dir "$STATE/pki" \
  --service-account-private-key-file pki/sa.key --root-ca-file pki/ca.crt --controllers '*' \
  --node-monitor-grace-period "${NODE_MONITOR_GRACE_PERIOD:-40s}"
start kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$KC" \
  --authentication-kubeconfig "$KC" --authorization-kubeconfig "$KC" --leader-elect=false \
  --port 0 --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --cert-dir "$STATE/pki"

# --- RBAC for the token users: viewer may read everything, nobody may do nothing.
k apply -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ds-rollout-e2e-read-only}
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ds-rollout-e2e-viewer}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ds-rollout-e2e-read-only}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: viewer}
YAML
# The namespace controller/serviceaccount controller must have made the default service account
# before pods can be created in `default`.
for i in $(seq 1 60); do k get serviceaccount default >/dev/null 2>&1 && break; sleep 1; done
k get serviceaccount default >/dev/null
trap - ERR
log "ready"
echo "$KC"

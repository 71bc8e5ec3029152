#!/bin/sh
# `vthost serve --http` reached from another network namespace: a veth
# pair joins a fresh namespace to this one, the server listens on the
# host side's address with TLS (a self-signed certificate through
# http.toml's tls_cert/tls_key), and the SDK client runs inside the
# namespace (`ip netns exec`).  Needs root (CAP_NET_ADMIN): elsewhere it
# exits 77, which ctest reports as skipped.  The namespace and the veth
# pair are removed on every exit path.
set -u
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root (CAP_NET_ADMIN) to create a network namespace"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) is not installed"
command -v openssl >/dev/null 2>&1 || skip "openssl is not installed (for the test certificate)"
node=${VTHOST_NODE:-node}

# unique per run: names of at most 15 bytes, a /24 of 10.231.0.0/16
n=$(( $$ % 250 + 1 ))
ns=vth31ns$$
hv=vth31h$$
sub=10.231.$n
tmp=$(mktemp -d /tmp/vthost-netns-XXXXXX) || exit 1

cleanup() {
    ip link del "$hv" 2>/dev/null
    ip netns del "$ns" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

ip netns add "$ns" 2>"$tmp/err" || skip "cannot create a network namespace: $(cat "$tmp/err")"
set -e
ip link add "$hv" type veth peer name eth31 netns "$ns"
ip addr add "$sub.1/24" dev "$hv"
ip link set "$hv" up
ip -n "$ns" addr add "$sub.2/24" dev eth31
ip -n "$ns" link set eth31 up
ip -n "$ns" link set lo up
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=vthost-netns-test" \
    -addext "subjectAltName=IP:$sub.1" -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; exit 1; }
set +e

VTHOST_NETNS="$ns" VTHOST_NETNS_HOST="$sub.1" VTHOST_NETNS_PEER="$sub.2" \
VTHOST_NETNS_CERT="$tmp/cert.pem" VTHOST_NETNS_KEY="$tmp/key.pem" \
    "$node" --test --test-concurrency=1 "$here/netns.test.mjs"

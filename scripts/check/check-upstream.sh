#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make check-upstream`: on the patched kernel, the upstream selftests near
# the change, through the same runner and report as ours.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../lib.sh"
lock_tree

S=$TOP/scripts
export RUN_OURS=0
# Its own kernel: the minimal one plus what these tests need.
export BUILD=$CACHE/build-upstream
export EXTRA_CONFIG=$TOP/scripts/check/upstream.config
export UPSTREAM_BINS="psock_snd"
# Chosen to fit the VM and the host's iproute2 (Debian 12: 6.1); the
# rtnetlink.sh cases in its own order (kci_test_promote_secondaries ends
# with "ip addr flush", which also removes the IPv6 link-local route that
# kci_test_route_get needs).  Left out, with the reason:
#  - rtnetlink.sh kci_test_address_proto: skips with iproute2 < 6.3;
#  - fib_tests.sh ipv4_notify, ipv6_notify: need lwtunnel "encap ip"
#    and write errors.txt into the (read-only) selftest directory;
#  - fib_tests.sh *_mpath_*: need mausezahn (not installed on the host).
export UPSTREAM_TESTS="psock_fanout psock_tpacket txring_overwrite psock_snd.sh
rtnetlink.sh:kci_test_route_get,kci_test_addrlft,kci_test_addrlft_route_cleanup,kci_test_promote_secondaries
fib_tests.sh:unregister,down,carrier,ipv4_rt,ipv6_rt,ipv4_del_addr,ipv6_del_addr,ipv4_addr_metric,ipv4_bcast_neigh"
kernel_up_to_date
step "boot and run upstream selftests" "$S/loop/selftests-in-vm.sh"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Test that net.ipv4.ip_early_demux, tcp_early_demux and udp_early_demux
# gate early demux, IPv4 and IPv6, on the ip_rcv() and ip_list_rcv() paths,
# by counting FIB lookups.  The cases are in ip_early_demux.c, whose KTAP
# output this script passes on; here: tracefs, and a receiver and a sender
# netns joined by a veth (not lo: looped back packets keep their dst, so
# early demux never runs there).
#
# The sender's addresses are on its lo and the neighbours are static: its
# veth end joins no multicast group, so nothing but the test's packets
# (no ARP, neighbour discovery or MLD) reaches the receiver.
#
# Expected runtime: ~4 s under QEMU/TCG (2 vCPUs, no KVM).

# lib.sh is not followed without -x (SC1091) and sets ksft_* (SC2154).
# shellcheck disable=SC1091,SC2154
source "$(dirname "$0")"/lib.sh

BIN=$(dirname "$0")/ip_early_demux
TRACEFS=/sys/kernel/tracing
EVENTS="fib/fib_table_lookup fib6/fib6_table_lookup net/napi_gro_receive_entry"

# Kept in sync with ip_early_demux.c.
RX_DEV=edmx_rx
TX_DEV=edmx_tx
RX_ADDR4=198.51.100.1
TX_ADDR4=198.51.100.2
RX_ADDR6=2001:db8:ed::1
TX_ADDR6=2001:db8:ed::2
RX_MAC=02:ed:00:00:00:01
TX_MAC=02:ed:00:00:00:02

skip()
{
	echo "SKIP: $*"
	exit "$ksft_skip"
}

setup_tracefs()
{
	local ev

	if [[ ! -d $TRACEFS/instances ]]; then
		mount -t tracefs nodev "$TRACEFS" || skip "cannot mount tracefs"
		defer umount "$TRACEFS"
	fi
	for ev in $EVENTS; do
		[[ -d $TRACEFS/events/$ev ]] || skip "no $ev event"
	done
	# The GRO count is filtered on the device's netns (Linux 5.17+).
	grep -qw net_cookie \
		"$TRACEFS/events/net/napi_gro_receive_entry/format" ||
		skip "net:napi_gro_receive_entry without net_cookie"
}

# The link passes packets once linkwatch has turned the carrier on and
# swapped the noop qdisc for noqueue.
link_ready()
{
	ip -n "$1" -j link show dev "$2" |
		jq -e '.[0].operstate == "UP" and
		       .[0].qdisc == "noqueue"' >/dev/null
}

# Addresses, links up, routes and static neighbours.
configure()
{
	local addr

	ip -n "$RX" addr add "$RX_ADDR4/24" dev "$RX_DEV" &&
	ip -n "$RX" addr add "$RX_ADDR6/64" dev "$RX_DEV" nodad &&
	ip -n "$TX" addr add "$TX_ADDR4/32" dev lo &&
	ip -n "$TX" addr add "$TX_ADDR6/128" dev lo &&
	ip -n "$TX" link set dev "$TX_DEV" up &&
	ip -n "$RX" link set dev "$RX_DEV" up &&
	ip -n "$TX" route add "$RX_ADDR4" dev "$TX_DEV" &&
	ip -n "$TX" route add "$RX_ADDR6" dev "$TX_DEV" || return
	for addr in "$TX_ADDR4" "$TX_ADDR6"; do
		ip -n "$RX" neigh add "$addr" lladdr "$TX_MAC" \
			dev "$RX_DEV" nud permanent || return
	done
	for addr in "$RX_ADDR4" "$RX_ADDR6"; do
		ip -n "$TX" neigh add "$addr" lladdr "$RX_MAC" \
			dev "$TX_DEV" nud permanent || return
	done
	busywait "$BUSYWAIT_TIMEOUT" link_ready "$RX" "$RX_DEV" &&
	busywait "$BUSYWAIT_TIMEOUT" link_ready "$TX" "$TX_DEV"
}

setup()
{
	local idx inum

	# As lib.sh has it: a netns that cannot be created is a missing
	# dependency (ksft_skip), in every script of this series.
	setup_ns RX TX || exit
	defer cleanup_all_ns

	# The FIB lookup events are told apart by the receiving ifindex, the
	# tracepoints being global: it must exist in no other netns.  The
	# kernel allocates indexes per netns counting up from 1
	# (dev_index_reserve()), so one from 2^30 up is only taken by a device
	# created with that index; and this one differs from the index of
	# every other copy of this test running at the same time: it is the
	# receiver's netns inode number (unique among live namespaces, from
	# 0xf0000000 up) in the low 30 bits.
	inum=$(stat -L -c %i "/run/netns/$RX") ||
		{ echo "FAIL: no inode for netns $RX"; exit "$ksft_fail"; }
	idx=$(((1 << 30) | (inum & ((1 << 30) - 1))))
	ip -n "$RX" link add name "$RX_DEV" index "$idx" address "$RX_MAC" \
		type veth peer name "$TX_DEV" netns "$TX" address "$TX_MAC" ||
		{ echo "FAIL: cannot add a veth pair"; exit "$ksft_fail"; }
	# No link-local address: no DAD, no route change while counting.
	if ! ip -n "$RX" link set dev "$RX_DEV" addrgenmode none ||
	   ! ip -n "$TX" link set dev "$TX_DEV" addrgenmode none; then
		skip "iproute2 without addrgenmode"
	fi
	if ! configure; then
		echo "FAIL: cannot set up the veth"
		exit "$ksft_fail"
	fi
}

[[ $(id -u) -eq 0 ]] || skip "need root"
[[ -x $BIN ]] || skip "$BIN not built"
command -v jq >/dev/null || skip "jq not installed"
trap defer_scopes_cleanup EXIT
setup_tracefs
setup
"$BIN" "$RX" "$TX"

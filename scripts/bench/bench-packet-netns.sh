#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The keepalived case (issue 14): one send-only AF_PACKET socket in each of
# N network namespaces, broadcast ARP offered into one of them or into all,
# on the series kernel and on Debian's linux-source-6.12 built with the same
# config fragments (before "net: introduce per netns packet chains", which
# moved device-less packet hooks from the global ptype lists to the netns).
#
#   make bench-packet-netns		(host: both kernels, one boot each: bench.sh)
#   scripts/bench/bench-packet-netns.sh --build	(host: keepalived; the helper is built by any call)
#   scripts/bench/bench-packet-netns.sh --old-kernel	(host: fetch, build 6.12)
#   scripts/vm/vm-exec.sh scripts/bench/bench-packet-netns.sh	(guest: one kernel)
#
# Topology: namespaces pnb-1 .. pnb-N, each with the end eth0 of a veth pair
# whose other end pnbsI stays in the VM's initial namespace, where
# pnetns_bench (scripts/bench/pnetns_bench.c) sends broadcast ARP requests (for an address
# nobody owns) from a protocol-0 packet socket: out of pnbs1 ("one") or out
# of pnbs1 .. pnbsN ("all", one frame per namespace, as a bridge would
# flood it).  veth delivers in the sender's softirq, so the time the sender
# spends inside sendto() is the receivers' CPU.  Socket kinds:
#   none  no packet socket (the baseline);
#   ka    the socket keepalived 2.2.7 opens for gratuitous ARP
#         (ETH_P_ARP, not bound, classic BPF "ret #0"), held by one process;
#   p0    the same socket with protocol 0;
#   kad   Debian's keepalived itself, one VRRP instance per namespace.
# Per case: packet_rcv()/tpacket_rcv()/arp_rcv() calls counted with the
# ftrace function profiler over BENCH_EVENTS ARPs (exact, the headline),
# then, with the profiler off, per rate: instructions per ARP inside the
# sender (ICOUNT=1: 1 guest ns = 1 instruction), that as a share of the
# elapsed time (the receiver CPU at that rate), whether the rate was
# achieved, all-CPU busy time from /proc/stat (10 ms ticks), and drops
# (softnet_stat, the veths' counters, the sockets' PACKET_STATISTICS).
#
# Columns: an ARP is one broadcast offered by the sender, a delivery one
# frame of it received in one namespace (N per ARP "into all"); "ARP/s at
# 100% of 1 CPU" is 10^9 / (instructions per ARP), the rate one guest CPU
# (10^9 instructions/s under ICOUNT=1) sustains before a NIC would drop;
# "receiver CPU" is the time inside sendto() over the run's time (the
# offered EVENTS / RATE, longer when the sender fell behind: then the rate
# was not achieved and a real receiver would have dropped the rest).
# Drops stay 0 here by construction: veth receives in the sender's context.
#
# Environment (guest; the knobs and their defaults: make help): BENCH_NS
# (namespace counts), BENCH_KINDS (socket kinds), BENCH_KA_NS (namespace
# counts for Debian's keepalived; "" skips it), BENCH_RATES (offered
# broadcast ARPs per second), BENCH_EVENTS (ARPs per measurement into one
# namespace), BENCH_EVENTS_ALL (into all N namespaces).
# Not -e: a measurement that fails is reported in its table row, and the
# namespaces are removed on the way out.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$(readlink -f "$0")")/../lib.sh"
BIN=$(build_helper "$TOP/scripts/bench/pnetns_bench.c" -static) || exit
OLD=$CACHE/old-6.12
OLD_PKG_RE='^linux-source-6\.12$'
OLD_SUITES=bookworm-security

build()
{
	# keepalived runs only in the guest.  Debian starts services from
	# maintainer scripts through invoke-rc.d: a policy-rc.d that answers
	# 101 forbids it (this machine has one already; otherwise one is put
	# in place for the installation only).
	if ! dpkg-query -W -f='${Status}' keepalived 2>/dev/null |
			grep -q 'install ok installed'; then
		local tmp_policy=
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			tmp_policy=/usr/sbin/policy-rc.d
			printf '#!/bin/sh\nexit 101\n' >"$tmp_policy"
			chmod 755 "$tmp_policy"
		fi
		need_pkgs keepalived
		[ -z "$tmp_policy" ] || rm -f "$tmp_policy"
	fi
	need_pkgs strace
	if pgrep -x keepalived >/dev/null; then
		log "warning: keepalived runs on this host (not started by us)"
	fi
}

# The older kernel: Debian's newest linux-source-6.12, fetched and built
# like the base (scripts/loop/fetch-base.sh, scripts/loop/build.sh) in its own cache
# directory, ccache shared, with the benchmark kernels' config (bench.sh
# sets EXTRA_CONFIG to it; called alone, this does).
old_kernel()
{
	CACHE=$OLD CCACHE_DIR=$CCACHE_DIR BASE_PKG_RE=$OLD_PKG_RE \
		BASE_SUITES=$OLD_SUITES "$TOP/scripts/loop/fetch-base.sh" &&
	CACHE=$OLD BUILD=$OLD/build CCACHE_DIR=$CCACHE_DIR VERIFY_CONFIG=warn \
		EXTRA_CONFIG=${EXTRA_CONFIG:-$TOP/scripts/bench/bench.config} \
		"$TOP/scripts/loop/build.sh" || return
	local opt
	for opt in PACKET VETH NET_NS FUNCTION_PROFILER DYNAMIC_FTRACE; do
		grep -q "^CONFIG_$opt=y" "$OLD/build/.config" ||
			die "CONFIG_$opt is not set in $OLD/build/.config"
	done
}

case ${1:-} in
--build) build; exit ;;
--old-kernel) old_kernel; exit ;;
"") ;;
*) echo "usage: $0 [--build|--old-kernel]" >&2; exit 2 ;;
esac

# ---- inside the VM ----
[ "$(id -u)" -eq 0 ] || { echo "need root" >&2; exit 4; }
BIN=$(stage_helper "$BIN") || exit

NS_LIST=${BENCH_NS:-"1 50 236"}
KINDS=${BENCH_KINDS:-"none ka p0"}
KA_NS=${BENCH_KA_NS-"1 50 236"}
RATES=${BENCH_RATES:-"700 5000"}
EVENTS=${BENCH_EVENTS:-500}
EVENTS_ALL=${BENCH_EVENTS_ALL:-200}
FUNCS="packet_rcv tpacket_rcv arp_rcv"
T=/sys/kernel/tracing
WORK=/tmp/pnb
# shellcheck disable=SC2086 # lists of numbers
MAXN=$(printf '%s\n' $NS_LIST $KA_NS | sort -n | tail -n 1)
HOLDER=

mkdir -p "$WORK"

cleanup()
{
	stop_holder
	stop_keepalived
	echo 0 >"$T/function_profile_enabled" 2>/dev/null
	: >"$T/set_ftrace_filter" 2>/dev/null
	for ((i = 1; i <= MAXN; i++)); do
		ip link del "pnbs$i" 2>/dev/null
		ip netns del "pnb-$i" 2>/dev/null
	done
}
trap cleanup EXIT

setup()
{
	local i t0=$SECONDS

	# No IPv6 chatter (DAD, MLD, RS) on the new links.
	sysctl -qw net.core.devconf_inherit_init_net=1 \
		net.ipv6.conf.default.disable_ipv6=1 \
		net.ipv6.conf.all.disable_ipv6=1 || return
	for ((i = 1; i <= MAXN; i++)); do
		ip netns add "pnb-$i" || return
	done
	for ((i = 1; i <= MAXN; i++)); do
		echo "link add pnbs$i type veth peer name eth0 netns pnb-$i"
		echo "link set pnbs$i up"
	done | ip -b - || return
	for ((i = 1; i <= MAXN; i++)); do
		printf 'link set lo up\nlink set eth0 up\naddr add 10.1.%d.%d/16 dev eth0\n' \
			$((i / 200)) $((i % 200 + 2)) | ip -n "pnb-$i" -b - || return
	done
	# Frames pass once the sending ends have their qdisc (linkwatch).
	for ((i = 0; i < 300; i++)); do
		[ "$(ip -o link show up | grep -c 'pnbs.*qdisc noqueue state UP')" -eq "$MAXN" ] &&
			break
		sleep 0.1
	done
	echo "# setup: $MAXN namespaces in $((SECONDS - t0)) s (wall clock of the guest)"
}

traceable()
{
	local f ok=

	for f in $FUNCS; do
		grep -qx "$f" "$T/available_filter_functions" && ok="$ok $f"
	done
	echo "${ok# }"
}

# hits FUNC: calls of FUNC over all CPUs since the profiler was enabled.
hits()
{
	awk -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' \
		"$T"/trace_stat/function[0-9]*
}

# drops: softnet_stat drops (hex, per CPU) + the sending veths' counters.
drops()
{
	local n=0 x

	while read -r _ x _; do
		n=$((n + 16#$x))
	done </proc/net/softnet_stat
	# One process for all files: each exec costs much under TCG.
	awk -v n="$n" '{ n += $1 } END { print n }' \
		/sys/class/net/pnbs*/statistics/{tx,rx}_dropped
}

field()
{
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }'
}

start_holder()
{
	HOLDER_OUT=$WORK/holder.out
	"$BIN" hold -k "$1" -n "$2" >"$HOLDER_OUT" &
	HOLDER=$!
	while ! grep -q ready "$HOLDER_OUT"; do
		kill -0 "$HOLDER" 2>/dev/null || { HOLDER=; return 1; }
		sleep 0.1
	done
}

stop_holder()
{
	[ -n "$HOLDER" ] || return 0
	kill -TERM "$HOLDER"
	wait "$HOLDER"
	HOLDER=
}

KA_PIDS=()
start_keepalived()
{
	local n=$1 i ok t p

	for ((i = 1; i <= n; i++)); do
		printf '%s\n' "global_defs {" "    router_id pnb$i" "}" \
			"vrrp_instance R$i {" "    state BACKUP" \
			"    interface eth0" \
			"    virtual_router_id $((i % 250 + 1))" \
			"    priority 100" "    advert_int 1" \
			"    virtual_ipaddress {" \
			"        10.2.$((i / 200)).$((i % 200 + 2))/32 dev eth0" \
			"    }" "}" >"$WORK/ka$i.conf"
		local cmd=(keepalived -P -n -G -l -f "$WORK/ka$i.conf"
			   -p "$WORK/ka$i.pid" -r "$WORK/vrrp$i.pid")
		# The first one under strace: how it opens its sockets.
		# shellcheck disable=SC2054 # strace's -e list
		[ "$i" -gt 1 ] || cmd=(strace -f -qq -o "$WORK/strace" \
			-e trace=socket,bind,setsockopt "${cmd[@]}")
		ip netns exec "pnb-$i" "${cmd[@]}" >"$WORK/ka$i.log" 2>&1 &
		KA_PIDS+=($!)
	done
	# Ready when every VRRP child has its ARP packet socket (0806); bash
	# builtins only (each exec costs much under TCG).
	for ((i = 1; i <= n; i++)); do
		ok=
		for ((t = 0; t < 600; t++)); do
			if read -r p 2>/dev/null <"$WORK/vrrp$i.pid" &&
			   [[ $(<"/proc/$p/net/packet") == *" 0806 "* ]]; then
				ok=1
				break
			fi
			sleep 0.1
		done
		[ -n "$ok" ] || { echo "keepalived $i has no ARP socket" >&2; cat "$WORK/ka$i.log" >&2; return 1; }
	done
}

# The keepalived parents (from their pid files; each stops its VRRP child),
# then the wrappers we started.
stop_keepalived()
{
	local f p t

	[ ${#KA_PIDS[@]} -gt 0 ] || return 0
	for f in "$WORK"/ka[0-9]*.pid; do
		read -r p 2>/dev/null <"$f" && kill -TERM "$p" 2>/dev/null
	done
	for ((t = 0; t < 300; t++)); do
		kill -0 "${KA_PIDS[@]}" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "${KA_PIDS[@]}" 2>/dev/null
	wait "${KA_PIDS[@]}" 2>/dev/null
	rm -f "$WORK"/ka[0-9]*.pid "$WORK"/vrrp[0-9]*.pid
	KA_PIDS=()
}

# ka_ticks: user + system clock ticks of the keepalived processes.
ka_ticks()
{
	local f t=0 p st

	for f in "$WORK"/ka[0-9]*.pid "$WORK"/vrrp[0-9]*.pid; do
		read -r p 2>/dev/null <"$f" || continue
		read -r -a st 2>/dev/null <"/proc/$p/stat" || continue
		t=$((t + st[13] + st[14]))
	done
	echo "$t"
}

# measure N KIND TARGET: count the calls, then one row per rate.
measure()
{
	local n=$1 kind=$2 target=$3 tn ev out f rate c=() d0 d1

	if [ "$target" = one ]; then tn=1; ev=$EVENTS; else tn=$n; ev=$EVENTS_ALL; fi
	# Counting, at the first rate (counts do not depend on the rate).
	echo 0 >"$T/function_profile_enabled"
	echo 1 >"$T/function_profile_enabled"
	out=$("$BIN" send -n "$tn" -r "${RATES%% *}" -e "$ev") || return
	echo 0 >"$T/function_profile_enabled"
	for f in $FUNCS; do
		c+=("$(hits "$f")")
	done
	for rate in $RATES; do
		d0=$(drops)
		out=$("$BIN" send -n "$tn" -r "$rate" -e "$ev") || return
		d1=$(drops)
		awk -v n="$n" -v kind="$kind" -v tg="$target" -v rate="$rate" \
		    -v ev="$ev" -v tn="$tn" -v pr="${c[0]}" -v tr="${c[1]}" \
		    -v ar="${c[2]}" -v dr=$((d1 - d0)) \
		    -v line="$out" -v kernel="$(uname -r)" 'BEGIN {
			split(line, w, " ")
			for (i = 1; i < length(w); i += 2) v[w[i]] = w[i + 1]
			a = v["achieved"] + 0
			printf "| %s | %d | %s | %s | %d | %d | %.1f | %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %.1f%% | %.0f | %s | %d |\n",
			    kernel, n, kind, tg, rate, ev, pr / ev, tr / ev,
			    pr / (ev * tn), ar / (ev * tn), v["busy_ns"] / ev,
			    v["busy_ns"] / (ev * tn), 1e9 * ev / v["busy_ns"],
			    100 * v["busy_ns"] / v["elapsed_ns"], a,
			    (a >= 0.98 * rate ? "yes" : "no"), dr
		}'
	done
}

header()
{
	echo "| kernel | N | sockets | into | ARP/s offered | ARPs | packet_rcv per ARP | tpacket_rcv per ARP | packet_rcv per delivery | arp_rcv per delivery | instr per ARP | instr per delivery | ARP/s at 100% of 1 CPU | receiver CPU | ARP/s achieved | achieved | drops |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

echo "# kernel $(uname -r), $(nproc) CPUs, icount ${ICOUNT:-0}, rates $RATES ARP/s, $EVENTS ARPs into one, $EVENTS_ALL into all"
echo "# traceable: $(traceable) (of $FUNCS)"
[ "$(traceable)" = "$FUNCS" ] || { echo "profiler cannot count $FUNCS" >&2; exit 1; }
echo "$FUNCS" >"$T/set_ftrace_filter"
setup || { echo "setup failed" >&2; exit 1; }
header
for n in $NS_LIST; do
	for kind in $KINDS; do
		if [ "$kind" != none ]; then
			start_holder "$kind" "$n" || { echo "holder failed" >&2; exit 1; }
		fi
		measure "$n" "$kind" one
		[ "$n" -eq 1 ] || measure "$n" "$kind" all
		if [ "$kind" != none ]; then
			stop_holder
			echo "# $kind x $n: socket drops (tp_drops) $(field tp_drops <"$HOLDER_OUT")"
		fi
	done
done
for n in $KA_NS; do
	command -v keepalived >/dev/null || { echo "# no keepalived"; break; }
	t0=$SECONDS
	start_keepalived "$n" || exit 1
	echo "# keepalived x $n: started in $((SECONDS - t0)) s; /proc/net/packet in pnb-1:"
	sed 's/^/#   /' "/proc/$(cat "$WORK/vrrp1.pid")/net/packet"
	if [ "$n" = "${KA_NS%% *}" ]; then
		echo "# keepalived $(keepalived -v 2>&1 | head -n 1), its packet sockets (strace):"
		grep -E 'socket\(|SO_ATTACH_FILTER' "$WORK/strace" | sed 's/^/#   /'
	fi
	# The transitions to MASTER (3 advert intervals) and both bursts of
	# gratuitous ARPs (garp_master_delay 5 s) pass first.
	sleep 15
	k0=$(ka_ticks) t0=$SECONDS
	measure "$n" kad one
	[ "$n" -eq 1 ] || measure "$n" kad all
	echo "# keepalived x $n: its processes used $(($(ka_ticks) - k0)) clock ticks of CPU in the $((SECONDS - t0)) s of measurements"
	stop_keepalived
done

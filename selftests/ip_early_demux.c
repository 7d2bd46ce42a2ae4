// SPDX-License-Identifier: GPL-2.0
/*
 * net.ipv4.ip_early_demux, tcp_early_demux and udp_early_demux decide
 * whether ip_rcv_finish_core() and ip6_rcv_finish_core() (IPv6 obeys the
 * same net.ipv4 knobs) look up the socket of a packet before its route.
 * When early demux finds an established TCP or a connected UDP socket, the
 * packet takes the socket's cached input route and needs no FIB lookup;
 * otherwise every packet makes one.
 *
 * ip_early_demux.sh joins a sender and a receiver netns with a veth.  Each
 * case sends PACKETS one-byte packets, each received before the next is
 * sent, to an established TCP or a connected UDP socket of the receiver,
 * and counts in a tracefs instance the fib:fib_table_lookup
 * (fib6:fib6_table_lookup) events of the receiving device for them: 0 when
 * early demux is on, one per packet (TCP: per segment received) when it is
 * off.
 *
 * Each variant writes 0 to one knob and 1 to the two others in the
 * receiver's netns, 0 to all three in the sender's, and reads them back:
 * only the receiver's knobs count, and ip_early_demux=0 overrides the
 * per-protocol ones.  The rcv test receives through ip_rcv() / ipv6_rcv()
 * (GRO off: veth hands packets to netif_rx()); the list_rcv test through
 * veth's NAPI and GRO, which pass them on with
 * netif_receive_skb_list_internal() to ip_list_rcv() / ipv6_list_rcv()
 * (GRO on at the receiver, TSO off at the sender).  Both count the
 * net:napi_gro_receive_entry events of the receiving device, one per
 * packet on the list path, none on the other, and SKIP if veth took
 * another path than the one they set up.  new_netns_defaults checks that
 * the three knobs are 1 in a new netns.
 *
 * Usage: ip_early_demux RX_NS TX_NS [harness options]
 * The namespaces are names in /run/netns or paths.  Run it where tracefs is
 * mounted: it enters the namespaces with setns(), while "ip netns exec"
 * would remount /sys.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* Set up by ip_early_demux.sh. */
#define RX_DEV		"edmx_rx"
#define TX_DEV		"edmx_tx"
#define RX_ADDR4	"198.51.100.1"
#define TX_ADDR4	"198.51.100.2"
#define RX_ADDR6	"2001:db8:ed::1"
#define TX_ADDR6	"2001:db8:ed::2"

#define TRACEFS		"/sys/kernel/tracing"
#define WARMUP		2	/* packets before counting */
#define PACKETS		20UL	/* packets counted */

enum { IP, TCP, UDP, NR_KNOBS };

static const char * const knobs[NR_KNOBS] = {
	[IP] = "ip_early_demux",
	[TCP] = "tcp_early_demux",
	[UDP] = "udp_early_demux",
};

#define ALL_ON		((1 << NR_KNOBS) - 1)

enum { FIB4, FIB6, GRO, NR_EVENTS };

static const char * const events[NR_EVENTS] = {
	[FIB4] = "fib/fib_table_lookup",
	[FIB6] = "fib6/fib6_table_lookup",
	[GRO] = "net/napi_gro_receive_entry",
};

static int rx_ns, tx_ns;
static char instance[64];

static int write_str(const char *path, const char *str)
{
	ssize_t len = strlen(str);
	int fd, ret;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, str, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/* Enter netns @ns and write its knobs: bit i of @bits is knobs[i]. */
static int set_knobs(int ns, int bits)
{
	char path[64];
	int i;

	if (setns(ns, CLONE_NEWNET))
		return -1;
	for (i = 0; i < NR_KNOBS; i++) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", knobs[i]);
		if (write_str(path, bits & (1 << i) ? "1" : "0"))
			return -1;
	}
	return 0;
}

/* Read the knobs of the current netns, as set_knobs() writes them. */
static int get_knobs(void)
{
	char path[64], buf[8] = "";
	int i, fd, bits = 0;
	ssize_t len;

	for (i = 0; i < NR_KNOBS; i++) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", knobs[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len < 0)
			return -1;
		buf[len] = '\0';
		if (strcmp(buf, "0\n") && strcmp(buf, "1\n"))
			return -1;
		bits |= (buf[0] == '1') << i;
	}
	return bits;
}

/* Turn an ethtool flag of @dev in the current netns on or off. */
static int set_feature(const char *dev, __u32 cmd, bool on)
{
	struct ethtool_value ev = { .cmd = cmd, .data = on };
	struct ifreq ifr = {};
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&ev;
	ret = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return ret;
}

/* A socket bound to @addr in netns @ns; returns in rx_ns. */
static int bound_socket(int ns, int family, int type, const char *addr)
{
	struct sockaddr_storage ss = { .ss_family = family };
	struct sockaddr_in6 *sin6 = (void *)&ss;
	struct sockaddr_in *sin = (void *)&ss;
	socklen_t len = sizeof(*sin6);
	int fd;

	if (family == AF_INET) {
		inet_pton(family, addr, &sin->sin_addr);
		len = sizeof(*sin);
	} else {
		inet_pton(family, addr, &sin6->sin6_addr);
	}
	if (setns(ns, CLONE_NEWNET))
		return -1;
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, (void *)&ss, len)) {
		close(fd);
		fd = -1;
	}
	if (setns(rx_ns, CLONE_NEWNET) && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Connect @fd to the address @peer is bound to. */
static int connect_to(int fd, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(peer, (void *)&ss, &len))
		return -1;
	return connect(fd, (void *)&ss, len);
}

/* @count one-byte packets, each received before the next is sent. */
static int send_recv(int tx, int rx, unsigned long count)
{
	char c = 0;

	while (count--)
		if (send(tx, &c, 1, 0) != 1 || recv(rx, &c, 1, 0) != 1)
			return -1;
	return 0;
}

static unsigned long tcp_segs_in(int fd)
{
	struct tcp_info ti = {};
	socklen_t len = sizeof(ti);

	getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
	return ti.tcpi_segs_in;
}

/*
 * GRO on at the receiver and TSO off at the sender (veth uses NAPI and GRO
 * only for packets from a device without TSO): the list receive path.
 * Returns in rx_ns.
 */
static int set_path(bool list)
{
	if (setns(tx_ns, CLONE_NEWNET) ||
	    set_feature(TX_DEV, ETHTOOL_STSO, !list) ||
	    setns(rx_ns, CLONE_NEWNET))
		return -1;
	return set_feature(RX_DEV, ETHTOOL_SGRO, list);
}

struct counts {
	unsigned long packets;		/* TCP: segments received */
	unsigned long ev[NR_EVENTS];
};

static int count_events(unsigned long *ev)
{
	unsigned long in_buf = 0, written = 0;
	char path[128], tag[64];
	char *line = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/trace", instance);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &len, f) > 0) {
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in_buf, &written) == 2 || line[0] == '#')
			continue;
		for (i = 0; i < NR_EVENTS; i++) {
			snprintf(tag, sizeof(tag), " %s: ",
				 strchr(events[i], '/') + 1);
			if (strstr(line, tag))
				ev[i]++;
		}
	}
	free(line);
	fclose(f);
	return in_buf == written ? 0 : -1;	/* no event lost */
}

/* Send PACKETS packets from @tx to @rx and count the events they cause. */
static int send_and_count(int tx, int rx, bool tcp, struct counts *c)
{
	char path[128];

	memset(c, 0, sizeof(*c));
	/* The first packets set the socket's cached input route. */
	if (send_recv(tx, rx, WARMUP))
		return -1;

	snprintf(path, sizeof(path), "%s/trace", instance);
	c->packets = tcp ? tcp_segs_in(rx) : 0;
	if (write_str(path, "") ||	/* O_TRUNC clears the buffer */
	    send_recv(tx, rx, PACKETS) || count_events(c->ev))
		return -1;
	/* TCP: a retransmission is looked up like any other segment. */
	c->packets = tcp ? tcp_segs_in(rx) - c->packets : PACKETS;
	return 0;
}

TEST(new_netns_defaults)
{
	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ(ALL_ON, get_knobs());
}

/* The sockets of a case and what it counts. */
struct flow {
	int tx;			/* in the sender's netns */
	int rx;			/* established or connected socket */
	int fib;		/* FIB4 or FIB6 */
	bool tcp;
};

FIXTURE(early_demux)
{
	struct flow f;
};

FIXTURE_VARIANT(early_demux)
{
	int family;
	int type;
	int off;		/* the knob set to 0 */
	bool demux;		/* expected */
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_tcp_udp_off)
{
	.family = AF_INET, .type = SOCK_STREAM, .off = UDP, .demux = true,
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_tcp_tcp_off)
{
	.family = AF_INET, .type = SOCK_STREAM, .off = TCP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_tcp_ip_off)
{
	.family = AF_INET, .type = SOCK_STREAM, .off = IP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_udp_tcp_off)
{
	.family = AF_INET, .type = SOCK_DGRAM, .off = TCP, .demux = true,
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_udp_udp_off)
{
	.family = AF_INET, .type = SOCK_DGRAM, .off = UDP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv4_udp_ip_off)
{
	.family = AF_INET, .type = SOCK_DGRAM, .off = IP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_tcp_udp_off)
{
	.family = AF_INET6, .type = SOCK_STREAM, .off = UDP, .demux = true,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_tcp_tcp_off)
{
	.family = AF_INET6, .type = SOCK_STREAM, .off = TCP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_tcp_ip_off)
{
	.family = AF_INET6, .type = SOCK_STREAM, .off = IP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_udp_tcp_off)
{
	.family = AF_INET6, .type = SOCK_DGRAM, .off = TCP, .demux = true,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_udp_udp_off)
{
	.family = AF_INET6, .type = SOCK_DGRAM, .off = UDP, .demux = false,
};

FIXTURE_VARIANT_ADD(early_demux, ipv6_udp_ip_off)
{
	.family = AF_INET6, .type = SOCK_DGRAM, .off = IP, .demux = false,
};

FIXTURE_SETUP(early_demux)
{
	const char *rx_addr = variant->family == AF_INET ? RX_ADDR4 : RX_ADDR6;
	const char *tx_addr = variant->family == AF_INET ? TX_ADDR4 : TX_ADDR6;
	int rx_knobs = ALL_ON & ~(1 << variant->off);
	struct timeval tv = { .tv_sec = 10 };	/* a lost packet fails */
	struct flow *f = &self->f;
	int lfd, one = 1;

	f->fib = variant->family == AF_INET ? FIB4 : FIB6;
	f->tcp = variant->type == SOCK_STREAM;

	/* Per netns: the sender's knobs are 0, only the receiver's count. */
	ASSERT_EQ(0, set_knobs(rx_ns, rx_knobs));
	ASSERT_EQ(0, set_knobs(tx_ns, 0));
	ASSERT_EQ(0, get_knobs());
	ASSERT_EQ(0, setns(rx_ns, CLONE_NEWNET));
	ASSERT_EQ(rx_knobs, get_knobs());

	f->tx = bound_socket(tx_ns, variant->family, variant->type, tx_addr);
	ASSERT_LE(0, f->tx);
	if (f->tcp) {
		lfd = bound_socket(rx_ns, variant->family, SOCK_STREAM,
				   rx_addr);
		ASSERT_LE(0, lfd);
		ASSERT_EQ(0, listen(lfd, 1));
		ASSERT_EQ(0, connect_to(f->tx, lfd));
		f->rx = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		close(lfd);
		ASSERT_LE(0, f->rx);
		ASSERT_EQ(0, setsockopt(f->tx, IPPROTO_TCP, TCP_NODELAY,
					&one, sizeof(one)));
	} else {
		f->rx = bound_socket(rx_ns, variant->family, SOCK_DGRAM,
				     rx_addr);
		ASSERT_LE(0, f->rx);
		ASSERT_EQ(0, connect_to(f->tx, f->rx));
		ASSERT_EQ(0, connect_to(f->rx, f->tx));
	}
	ASSERT_EQ(0, setsockopt(f->rx, SOL_SOCKET, SO_RCVTIMEO, &tv,
				sizeof(tv)));
}

FIXTURE_TEARDOWN(early_demux)
{
	close(self->f.rx);
	close(self->f.tx);
}

/*
 * Send the case's packets over the plain (@list false) or the list receive
 * path and count their FIB lookups.  Which path veth takes is the
 * precondition: a packet seen by napi_gro_receive() on the plain path, or
 * one not seen there on the list path, means veth chose otherwise (e.g. a
 * changed GRO eligibility): the path is not exercised, the case SKIPs.
 */
static void count_lookups(struct __test_metadata *_metadata,
			  const struct flow *f, bool demux, bool list)
{
	struct counts c;

	ASSERT_EQ(0, set_path(list));
	ASSERT_EQ(0, send_and_count(f->tx, f->rx, f->tcp, &c));
	if (c.ev[GRO] != (list ? c.packets : 0))
		SKIP(return, "path not exercised: %lu of %lu packets via GRO",
		     c.ev[GRO], c.packets);
	EXPECT_EQ(demux ? 0 : c.packets, c.ev[f->fib])
		TH_LOG("early demux %s", demux ? "on" : "off");
}

TEST_F(early_demux, rcv)
{
	count_lookups(_metadata, &self->f, variant->demux, false);
}

TEST_F(early_demux, list_rcv)
{
	count_lookups(_metadata, &self->f, variant->demux, true);
}

static void trace_cleanup(void)
{
	rmdir(instance);
}

/* Killed by the runner (SIGTERM on timeout) or by ^C: no instance left. */
static void trace_signal(int sig)
{
	rmdir(instance);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Instances of runs that were killed with SIGKILL, whose process is gone. */
static void trace_sweep(void)
{
	DIR *d = opendir(TRACEFS "/instances");
	char path[PATH_MAX];
	struct dirent *e;
	int pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (sscanf(e->d_name, "ip_early_demux.%d", &pid) != 1 ||
		    pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), TRACEFS "/instances/%s",
			 e->d_name);
		rmdir(path);
	}
	closedir(d);
}

/*
 * One tracefs instance for the whole run (enabling an event is slow under
 * emulation).  Only the receiving device's events of the test's packets
 * count.  The IPv4 event has 4-byte address arrays, which filters compare
 * as u32 in host byte order.  The IPv6 one has 16-byte arrays, which
 * filters cannot compare: there the L4 protocol and the receiving ifindex
 * do the job.  That index exists in no other netns: ip_early_demux.sh
 * chooses it (see there why).
 */
static void trace_setup(void)
{
	char filter[NR_EVENTS][128], path[128];
	socklen_t len = sizeof(__u64);
	__u32 src, dst;
	__u64 cookie;
	int ifindex, fd, i;

	ifindex = if_nametoindex(RX_DEV);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (!ifindex || fd < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		ksft_exit_fail_perror(RX_DEV);
	close(fd);
	inet_pton(AF_INET, TX_ADDR4, &src);
	inet_pton(AF_INET, RX_ADDR4, &dst);

	snprintf(filter[FIB4], sizeof(filter[FIB4]),
		 "iif == %d && src == %u && dst == %u", ifindex, src, dst);
	snprintf(filter[FIB6], sizeof(filter[FIB6]),
		 "iif == %d && (proto == %d || proto == %d)", ifindex,
		 IPPROTO_TCP, IPPROTO_UDP);
	snprintf(filter[GRO], sizeof(filter[GRO]),
		 "net_cookie == %llu && name == \"%s\"",
		 (unsigned long long)cookie, RX_DEV);

	trace_sweep();
	snprintf(instance, sizeof(instance),
		 TRACEFS "/instances/ip_early_demux.%d", getpid());
	if (mkdir(instance, 0700))
		ksft_exit_fail_perror(instance);
	atexit(trace_cleanup);
	signal(SIGTERM, trace_signal);
	signal(SIGINT, trace_signal);
	for (i = 0; i < NR_EVENTS; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/filter", instance,
			 events[i]);
		if (write_str(path, filter[i]))
			ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
		snprintf(path, sizeof(path), "%s/events/%s/enable", instance,
			 events[i]);
		if (write_str(path, "1"))
			ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	}
}

static int open_netns(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", strchr(name, '/') ? "" :
		 "/run/netns/", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

int main(int argc, char **argv)
{
	if (argc < 3 || argv[1][0] == '-' || argv[2][0] == '-')
		ksft_exit_fail_msg("usage: %s RX_NS TX_NS [harness options]\n",
				   argv[0]);
	rx_ns = open_netns(argv[1]);
	tx_ns = open_netns(argv[2]);
	if (rx_ns < 0 || tx_ns < 0 || setns(rx_ns, CLONE_NEWNET))
		ksft_exit_fail_perror("netns");
	trace_setup();

	argv[2] = argv[0];
	return test_harness_run(argc - 2, argv + 2);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Check that net.ipv4.ip_early_demux, tcp_early_demux and udp_early_demux
 * decide whether the packets of an established TCP socket and of a
 * connected UDP socket skip the input route lookup, for IPv4 and IPv6
 * (ip6_rcv_finish_core() obeys the same net.ipv4 knobs).
 *
 * The receiver lives in the namespace under test (-n), the sender in the
 * peer namespace (-p); the two are joined by a veth (not lo: loopback
 * packets keep their dst, so early demux never runs there).  When early
 * demux finds the socket, the packet gets the socket's cached sk_rx_dst
 * and ip_rcv_finish_core() / ip6_rcv_finish_core() skip the FIB lookup;
 * otherwise every packet does one.  So we count fib:fib_table_lookup
 * (fib6:fib6_table_lookup) hits that were made on the receiving device
 * for this test's addresses, with a filtered tracefs instance (-m trace)
 * or a filtered perf counter on every CPU (-m perf):
 *
 *   demux expected:     lookups <= SLACK (stray ARP, dst invalidation)
 *   demux not expected: lookups >= packets received by the socket
 *
 * The second bound is exact: a packet without a dst always goes through
 * ip_route_input_slow() -> fib_table_lookup() (ip6_pol_route() ->
 * fib6_table_lookup()), and each packet is read before the next is sent,
 * so the list receive path never reuses a route hint.  Each case first
 * sends WARMUP packets (handshake, neighbours, sk_rx_dst), and proves that
 * the counter works with CONTROL packets that early demux can never match
 * (SYNs to a closed port, datagrams to an unconnected socket).
 *
 * Usage (normally run by ip_early_demux.sh):
 *   ip_early_demux -p PEER_NETNS -i DEV [-n NETNS] [-4 LOCAL,PEER]
 *                  [-6 LOCAL,PEER] [-m trace|perf] [-c COUNT]
 *                  [-T 0|1] [-U 0|1] [-g] [-- HARNESS_OPTIONS]
 *
 * -T / -U give the expected TCP / UDP early demux state; by default it is
 * derived from the namespace's sysctls (ip_early_demux && tcp/udp_...).
 * -g turns GRO on at the receiver and TSO off at the sender (restored on
 * exit), so that packets take the list receive path (ip_list_rcv()).
 * Namespaces are names in /run/netns or paths.  The binary must run in a
 * mount namespace that shows tracefs, so switch netns with -n rather than
 * "ip netns exec" (which remounts /sys).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/perf_event.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define WARMUP		10U	/* packets before counting */
#define CONTROL		8U	/* packets early demux cannot match */
#define SLACK		4UL	/* stray lookups allowed, demux on */
#define RCV_TIMEOUT	10	/* s: a lost packet fails, not hangs */
#define TRACE_HDR_FMT	"# entries-in-buffer/entries-written: %lu/%lu"

enum count_method {
	COUNT_TRACE,
	COUNT_PERF,
};

static struct {
	const char *rx_ns_name;
	const char *peer_ns_name;
	const char *dev;
	int rx_ns;
	int peer_ns;
	bool have4, have6;
	struct in_addr local4, peer4;
	struct in6_addr local6, peer6;
	enum count_method method;
	unsigned int count;
	int expect_tcp;		/* -1: derive from sysctls */
	int expect_udp;
	const char *tracefs;
	bool list_rcv;
	char peer_dev[IFNAMSIZ];
	int gro_saved;		/* -1: not changed */
	int tso_saved;
} cfg = {
	.rx_ns = -1,
	.peer_ns = -1,
	.method = COUNT_TRACE,
	.count = 100,
	.expect_tcp = -1,
	.expect_udp = -1,
	.gro_saved = -1,
	.tso_saved = -1,
};

union sockaddr_inet {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/*
 * One counter per event, set up once before the tests (enabling a
 * tracepoint patches code and waits for RCU, slow under emulation); the
 * tests, which run one at a time, count the events of a window.
 */
struct counter {
	const char *event;		/* "fib/fib_table_lookup" */
	const char *name;		/* "fib_table_lookup" */
	char filter[128];
	bool ready;
	unsigned long base;		/* COUNT_TRACE */
	int *fds;			/* COUNT_PERF, one per CPU */
	int nr_fds;
};

static struct counter counters[2] = {
	{ .event = "fib/fib_table_lookup", .name = "fib_table_lookup" },
	{ .event = "fib6/fib6_table_lookup", .name = "fib6_table_lookup" },
};

static char trace_instance[256];

static int write_file(const char *path, const char *buf)
{
	ssize_t len = strlen(buf);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

static int read_file(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return 0;
}

static const char *find_tracefs(void)
{
	static const char * const roots[] = {
		"/sys/kernel/tracing",
		"/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/fib/fib_table_lookup",
			 roots[i]);
		if (!access(path, F_OK))
			return roots[i];
	}
	return NULL;
}

static int open_netns(const char *name)
{
	char path[PATH_MAX];

	if (!name)
		return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Create a socket in @nsfd, then return to the namespace under test. */
static int socket_in(int nsfd, int family, int type)
{
	int fd, err;

	if (setns(nsfd, CLONE_NEWNET))
		return -1;
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	err = errno;
	if (setns(cfg.rx_ns, CLONE_NEWNET)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	errno = err;
	return fd;
}

static socklen_t make_addr(union sockaddr_inet *a, int family, bool local,
			   unsigned short port)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a->v4.sin_family = AF_INET;
		a->v4.sin_port = htons(port);
		a->v4.sin_addr = local ? cfg.local4 : cfg.peer4;
		return sizeof(a->v4);
	}
	a->v6.sin6_family = AF_INET6;
	a->v6.sin6_port = htons(port);
	a->v6.sin6_addr = local ? cfg.local6 : cfg.peer6;
	return sizeof(a->v6);
}

static int bind_addr(int fd, int family, bool local)
{
	union sockaddr_inet a;
	socklen_t len = make_addr(&a, family, local, 0);

	return bind(fd, &a.sa, len);
}

static int connect_addr(int fd, int family, bool local, unsigned short port)
{
	union sockaddr_inet a;
	socklen_t len = make_addr(&a, family, local, port);

	return connect(fd, &a.sa, len);
}

static int local_port(int fd)
{
	union sockaddr_inet a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, &a.sa, &len))
		return -1;
	return ntohs(a.sa.sa_family == AF_INET ? a.v4.sin_port :
						 a.v6.sin6_port);
}

static int set_rcvtimeo(int fd)
{
	struct timeval tv = { .tv_sec = RCV_TIMEOUT };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Set an ethtool flag of @dev in this netns; return the old state. */
static int set_feature(const char *dev, __u32 get, __u32 set, bool on)
{
	struct ethtool_value ev = { .cmd = get };
	struct ifreq ifr = {};
	int fd, ret = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (void *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		goto out;
	ret = !!ev.data;
	ev.cmd = set;
	ev.data = on;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		ret = -1;
out:
	close(fd);
	return ret;
}

/* The peer's device: the one with the peer address, in this netns. */
static int find_peer_dev(char *name)
{
	struct ifaddrs *ifa, *i;
	int ret = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if ((i->ifa_addr->sa_family == AF_INET && cfg.have4 &&
		     !memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr,
			     &cfg.peer4, sizeof(cfg.peer4))) ||
		    (i->ifa_addr->sa_family == AF_INET6 && cfg.have6 &&
		     !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
			     &cfg.peer6, sizeof(cfg.peer6)))) {
			snprintf(name, IFNAMSIZ, "%s", i->ifa_name);
			ret = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return ret;
}

static void restore_features(void)
{
	if (cfg.gro_saved >= 0 && !setns(cfg.rx_ns, CLONE_NEWNET))
		set_feature(cfg.dev, ETHTOOL_GGRO, ETHTOOL_SGRO,
			    cfg.gro_saved);
	if (cfg.tso_saved >= 0 && !setns(cfg.peer_ns, CLONE_NEWNET))
		set_feature(cfg.peer_dev, ETHTOOL_GTSO, ETHTOOL_STSO,
			    cfg.tso_saved);
}

/*
 * veth receives through NAPI and netif_receive_skb_list(), that is
 * ip_list_rcv() / ipv6_list_rcv(), when GRO is on at the receiver and the
 * sender's skbs are eligible for GRO: the sending device without TSO.
 */
static void enable_list_rcv(void)
{
	if (setns(cfg.peer_ns, CLONE_NEWNET) || find_peer_dev(cfg.peer_dev))
		ksft_exit_fail_msg("no device with the peer address\n");
	cfg.tso_saved = set_feature(cfg.peer_dev, ETHTOOL_GTSO, ETHTOOL_STSO,
				    false);
	if (setns(cfg.rx_ns, CLONE_NEWNET))
		ksft_exit_fail_perror("setns");
	if (cfg.tso_saved >= 0)
		cfg.gro_saved = set_feature(cfg.dev, ETHTOOL_GGRO,
					    ETHTOOL_SGRO, true);
	atexit(restore_features);
	if (cfg.tso_saved < 0 || cfg.gro_saved < 0)
		ksft_exit_skip("cannot set GRO on %s, TSO off on %s: %s\n",
			       cfg.dev, cfg.peer_dev, strerror(errno));
}

static int read_sysctl(const char *name)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

/* Both events go to one tracefs instance, enabled for the whole run. */
static int trace_open(struct counter *c)
{
	char path[PATH_MAX];
	int err;

	if (!trace_instance[0]) {
		snprintf(trace_instance, sizeof(trace_instance),
			 "%s/instances/ip_early_demux.%d", cfg.tracefs,
			 getpid());
		if (mkdir(trace_instance, 0700)) {
			trace_instance[0] = '\0';
			return -errno;
		}
	}
	snprintf(path, sizeof(path), "%s/events/%s/filter", trace_instance,
		 c->event);
	err = write_file(path, c->filter);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events/%s/enable", trace_instance,
		 c->event);
	return write_file(path, "1");
}

/* Events of @c in the buffer; fail if any event was overwritten. */
static int trace_read(struct counter *c, unsigned long *count)
{
	unsigned long in_buf, written;
	bool have_hdr = false;
	char path[PATH_MAX];
	char match[64];
	char *line = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(match, sizeof(match), " %s: ", c->name);
	snprintf(path, sizeof(path), "%s/trace", trace_instance);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*count = 0;
	while (getline(&line, &len, f) > 0) {
		if (line[0] != '#') {
			if (strstr(line, match))
				(*count)++;
		} else if (sscanf(line, TRACE_HDR_FMT, &in_buf,
				  &written) == 2) {
			have_hdr = true;
		}
	}
	free(line);
	fclose(f);
	if (have_hdr && written != in_buf)
		return -ENOSPC;
	return 0;
}

static int trace_start(struct counter *c)
{
	return trace_read(c, &c->base);
}

static int trace_stop(struct counter *c, unsigned long *count)
{
	int err = trace_read(c, count);

	*count -= c->base;
	return err;
}

static void trace_close(void)
{
	char path[PATH_MAX];
	unsigned int i;

	if (!trace_instance[0])
		return;
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (!counters[i].ready)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/enable",
			 trace_instance, counters[i].event);
		write_file(path, "0");
	}
	rmdir(trace_instance);
	trace_instance[0] = '\0';
}

/* Perf counters on every CPU, filtered like the trace events. */
static int perf_open(struct counter *c)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.disabled = 1,
	};
	char path[PATH_MAX], buf[32];
	long cpu, nr_cpus;
	int fd, err;

	snprintf(path, sizeof(path), "%s/events/%s/id", cfg.tracefs,
		 c->event);
	err = read_file(path, buf, sizeof(buf));
	if (err)
		return err;
	attr.config = strtoull(buf, NULL, 10);

	nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (nr_cpus < 1)
		return -EINVAL;
	c->fds = calloc(nr_cpus, sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		fd = syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1,
			     PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV)	/* offline CPU */
			continue;
		if (fd < 0)
			return -errno;
		c->fds[c->nr_fds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, c->filter))
			return -errno;
	}
	return c->nr_fds ? 0 : -ENODEV;
}

static int perf_start(struct counter *c)
{
	int i;

	for (i = 0; i < c->nr_fds; i++)
		if (ioctl(c->fds[i], PERF_EVENT_IOC_RESET, 0) ||
		    ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	return 0;
}

static int perf_stop(struct counter *c, unsigned long *count)
{
	unsigned long long val;
	int i;

	for (i = 0; i < c->nr_fds; i++)
		if (ioctl(c->fds[i], PERF_EVENT_IOC_DISABLE, 0))
			return -errno;
	*count = 0;
	for (i = 0; i < c->nr_fds; i++) {
		if (read(c->fds[i], &val, sizeof(val)) != sizeof(val))
			return -EIO;
		*count += val;
	}
	return 0;
}

static void perf_close(struct counter *c)
{
	while (c->nr_fds > 0)
		close(c->fds[--c->nr_fds]);
	free(c->fds);
	c->fds = NULL;
}

static int counter_start(struct counter *c)
{
	return cfg.method == COUNT_PERF ? perf_start(c) : trace_start(c);
}

static int counter_stop(struct counter *c, unsigned long *count)
{
	return cfg.method == COUNT_PERF ? perf_stop(c, count) :
					  trace_stop(c, count);
}

static void counters_close(void)
{
	unsigned int i;

	if (cfg.method == COUNT_TRACE)
		trace_close();
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (cfg.method == COUNT_PERF)
			perf_close(&counters[i]);
		counters[i].ready = false;
	}
}

/*
 * Only lookups made on the receiving device for packets from the peer to
 * us count.  The IPv4 event has 4-byte address arrays, which filters
 * compare as u32 in host byte order.  The IPv6 one has 16-byte arrays,
 * which filters cannot compare: there the receiving ifindex (made unique
 * by the driver script) and the L4 protocol do the job.  For IPv4 input
 * routes the event's proto is 0 (ports and protocol are not set).
 */
static void counters_open(void)
{
	unsigned int i, src, dst;
	int ifindex, err;

	if (setns(cfg.rx_ns, CLONE_NEWNET))
		ksft_exit_fail_perror("setns");
	ifindex = if_nametoindex(cfg.dev);
	if (!ifindex)
		ksft_exit_fail_perror(cfg.dev);

	memcpy(&src, &cfg.peer4, sizeof(src));
	memcpy(&dst, &cfg.local4, sizeof(dst));
	snprintf(counters[0].filter, sizeof(counters[0].filter),
		 "iif == %d && src == %u && dst == %u", ifindex, src, dst);
	snprintf(counters[1].filter, sizeof(counters[1].filter),
		 "iif == %d && (proto == %d || proto == %d)", ifindex,
		 IPPROTO_TCP, IPPROTO_UDP);

	atexit(counters_close);
	for (i = 0; i < ARRAY_SIZE(counters); i++) {
		if (!(i ? cfg.have6 : cfg.have4))
			continue;
		if (cfg.method == COUNT_PERF)
			err = perf_open(&counters[i]);
		else
			err = trace_open(&counters[i]);
		if (err == -ENOENT || err == -ENODEV || err == -EOPNOTSUPP ||
		    err == -EACCES || err == -EPERM)
			ksft_exit_skip("cannot count %s events: %s\n",
				       counters[i].event, strerror(-err));
		if (err)
			ksft_exit_fail_msg("%s, filter \"%s\": %s\n",
					   counters[i].event,
					   counters[i].filter,
					   strerror(-err));
		counters[i].ready = true;
	}
}

FIXTURE(demux)
{
	int tx;			/* peer: sends the counted packets */
	int rx;			/* us: established / connected socket */
	int lfd;		/* us: TCP listener */
	int ctl_rx;		/* us: closed TCP port / unconnected UDP */
	unsigned short ctl_port;
	bool expect;
	struct counter *counter;
};

FIXTURE_VARIANT(demux)
{
	int family;
	int type;
};

FIXTURE_VARIANT_ADD(demux, ipv4_tcp)
{
	.family = AF_INET,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(demux, ipv4_udp)
{
	.family = AF_INET,
	.type = SOCK_DGRAM,
};

FIXTURE_VARIANT_ADD(demux, ipv6_tcp)
{
	.family = AF_INET6,
	.type = SOCK_STREAM,
};

FIXTURE_VARIANT_ADD(demux, ipv6_udp)
{
	.family = AF_INET6,
	.type = SOCK_DGRAM,
};

FIXTURE_SETUP(demux)
{
	bool tcp = variant->type == SOCK_STREAM;
	int family = variant->family;
	int port, one = 1, expect;

	self->tx = -1;
	self->rx = -1;
	self->lfd = -1;
	self->ctl_rx = -1;
	self->counter = &counters[family == AF_INET6];

	if (family == AF_INET ? !cfg.have4 : !cfg.have6)
		SKIP(return, "no %s addresses given",
		     family == AF_INET ? "IPv4" : "IPv6");

	ASSERT_EQ(0, setns(cfg.rx_ns, CLONE_NEWNET));
	ASSERT_TRUE(self->counter->ready);

	expect = tcp ? cfg.expect_tcp : cfg.expect_udp;
	if (expect < 0) {
		int ip = read_sysctl("ip_early_demux");
		int l4 = read_sysctl(tcp ? "tcp_early_demux" :
					   "udp_early_demux");

		ASSERT_LE(0, ip);
		ASSERT_LE(0, l4);
		expect = ip > 0 && l4 > 0;
	}
	self->expect = expect;

	/* The sockets whose packets are counted. */
	self->tx = socket_in(cfg.peer_ns, family, variant->type);
	ASSERT_LE(0, self->tx);
	ASSERT_EQ(0, bind_addr(self->tx, family, false));
	if (tcp) {
		self->lfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, self->lfd);
		ASSERT_EQ(0, bind_addr(self->lfd, family, true));
		ASSERT_EQ(0, listen(self->lfd, 1));
		port = local_port(self->lfd);
		ASSERT_LT(0, port);
		ASSERT_EQ(0, connect_addr(self->tx, family, true, port));
		self->rx = accept4(self->lfd, NULL, NULL, SOCK_CLOEXEC);
		ASSERT_LE(0, self->rx);
		ASSERT_EQ(0, setsockopt(self->tx, IPPROTO_TCP, TCP_NODELAY,
					&one, sizeof(one)));
	} else {
		self->rx = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ASSERT_LE(0, self->rx);
		ASSERT_EQ(0, bind_addr(self->rx, family, true));
		port = local_port(self->rx);
		ASSERT_LT(0, port);
		ASSERT_EQ(0, connect_addr(self->tx, family, true, port));
		port = local_port(self->tx);
		ASSERT_LT(0, port);
		ASSERT_EQ(0, connect_addr(self->rx, family, false, port));
	}
	ASSERT_EQ(0, set_rcvtimeo(self->rx));

	/*
	 * Control: a bound but not listening TCP port (SYNs get a RST, and
	 * early demux only looks up established sockets) or an unconnected
	 * UDP socket (early demux only matches connected ones).
	 */
	self->ctl_rx = socket(family, variant->type | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, self->ctl_rx);
	ASSERT_EQ(0, bind_addr(self->ctl_rx, family, true));
	port = local_port(self->ctl_rx);
	ASSERT_LT(0, port);
	self->ctl_port = port;
	ASSERT_EQ(0, set_rcvtimeo(self->ctl_rx));

	TH_LOG("%s \"%s\", early demux %sexpected", self->counter->event,
	       self->counter->filter, self->expect ? "" : "not ");
}

FIXTURE_TEARDOWN(demux)
{
	if (self->ctl_rx >= 0)
		close(self->ctl_rx);
	if (self->lfd >= 0)
		close(self->lfd);
	if (self->rx >= 0)
		close(self->rx);
	if (self->tx >= 0)
		close(self->tx);
}

/* One packet from the peer, received before the next one is sent. */
static int send_one(int tx, int rx)
{
	char c = 'x';

	if (send(tx, &c, 1, 0) != 1)
		return -1;
	if (recv(rx, &c, 1, 0) != 1)
		return -1;
	return 0;
}

static int send_many(int tx, int rx, unsigned int count)
{
	while (count--)
		if (send_one(tx, rx))
			return -1;
	return 0;
}

/* Packets to the control port, which early demux can never match. */
static int send_control(int family, int type, int ctl_rx,
			unsigned short port)
{
	unsigned int i;
	int fd, err;

	for (i = 0; i < CONTROL; i++) {
		fd = socket_in(cfg.peer_ns, family, type);
		if (fd < 0)
			return -1;
		err = bind_addr(fd, family, false);
		if (!err)
			err = connect_addr(fd, family, true, port);
		if (type == SOCK_STREAM) {
			/* Each attempt: a SYN, answered with a RST. */
			if (!err || errno != ECONNREFUSED)
				err = -1;
			else
				err = 0;
		} else if (!err) {
			err = send_one(fd, ctl_rx);
		}
		close(fd);
		if (err)
			return -1;
	}
	return 0;
}

static unsigned int tcp_segs_in(int fd)
{
	struct tcp_info ti = {};
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return 0;
	return ti.tcpi_segs_in;
}

TEST_F(demux, fib_lookups)
{
	bool tcp = variant->type == SOCK_STREAM;
	unsigned long ctl_lookups, lookups;
	unsigned int segs, packets;

	/* Handshake done; settle neighbours and the cached sk_rx_dst. */
	ASSERT_EQ(0, send_many(self->tx, self->rx, WARMUP));

	ASSERT_EQ(0, counter_start(self->counter));
	ASSERT_EQ(0, send_control(variant->family, variant->type,
				  self->ctl_rx, self->ctl_port));
	ASSERT_EQ(0, counter_stop(self->counter, &ctl_lookups));

	segs = tcp ? tcp_segs_in(self->rx) : 0;
	ASSERT_EQ(0, counter_start(self->counter));
	ASSERT_EQ(0, send_many(self->tx, self->rx, cfg.count))
		TH_LOG("send/recv: %s", strerror(errno));
	ASSERT_EQ(0, counter_stop(self->counter, &lookups));
	/* Every TCP segment was read before the next was sent: no GSO. */
	packets = tcp ? tcp_segs_in(self->rx) - segs : cfg.count;

	TH_LOG("%u packets: %lu FIB lookups (control: %lu for %u packets)",
	       packets, lookups, ctl_lookups, CONTROL);

	/* The counter sees lookups that early demux cannot avoid. */
	ASSERT_LE(CONTROL, ctl_lookups);
	ASSERT_LE(cfg.count, packets);
	if (self->expect) {
		EXPECT_GE(SLACK, lookups)
			TH_LOG("early demux on, yet packets were routed");
	} else {
		EXPECT_LE(packets, lookups)
			TH_LOG("early demux off, yet packets were not routed");
	}
}

static int parse_pair(const char *arg, int family, void *local, void *peer)
{
	char buf[2 * INET6_ADDRSTRLEN + 2], *comma;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		return -1;
	comma = strchr(buf, ',');
	if (!comma)
		return -1;
	*comma = '\0';
	if (inet_pton(family, buf, local) != 1 ||
	    inet_pton(family, comma + 1, peer) != 1)
		return -1;
	return 0;
}

static int parse_bool(const char *arg)
{
	if (!strcmp(arg, "0"))
		return 0;
	if (!strcmp(arg, "1"))
		return 1;
	return -2;
}

static __noreturn void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s -p PEER_NETNS -i DEV [-n NETNS] [-4 LOCAL,PEER]\n"
		"\t[-6 LOCAL,PEER] [-m trace|perf] [-c COUNT] [-T 0|1]\n"
		"\t[-U 0|1] [-g] [-- HARNESS_OPTIONS]\n", prog);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	int opt;

	while ((opt = getopt(argc, argv, "+n:p:i:4:6:m:c:T:U:gh")) != -1) {
		switch (opt) {
		case 'n':
			cfg.rx_ns_name = optarg;
			break;
		case 'p':
			cfg.peer_ns_name = optarg;
			break;
		case 'i':
			cfg.dev = optarg;
			break;
		case '4':
			if (parse_pair(optarg, AF_INET, &cfg.local4,
				       &cfg.peer4))
				usage(argv[0]);
			cfg.have4 = true;
			break;
		case '6':
			if (parse_pair(optarg, AF_INET6, &cfg.local6,
				       &cfg.peer6))
				usage(argv[0]);
			cfg.have6 = true;
			break;
		case 'm':
			if (!strcmp(optarg, "trace"))
				cfg.method = COUNT_TRACE;
			else if (!strcmp(optarg, "perf"))
				cfg.method = COUNT_PERF;
			else
				usage(argv[0]);
			break;
		case 'c':
			cfg.count = strtoul(optarg, NULL, 0);
			if (cfg.count <= 2 * SLACK)
				usage(argv[0]);
			break;
		case 'T':
			cfg.expect_tcp = parse_bool(optarg);
			if (cfg.expect_tcp < -1)
				usage(argv[0]);
			break;
		case 'U':
			cfg.expect_udp = parse_bool(optarg);
			if (cfg.expect_udp < -1)
				usage(argv[0]);
			break;
		case 'g':
			cfg.list_rcv = true;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!cfg.peer_ns_name || !cfg.dev || !(cfg.have4 || cfg.have6))
		usage(argv[0]);

	cfg.rx_ns = open_netns(cfg.rx_ns_name);
	if (cfg.rx_ns < 0)
		ksft_exit_fail_perror(cfg.rx_ns_name ?: "own netns");
	cfg.peer_ns = open_netns(cfg.peer_ns_name);
	if (cfg.peer_ns < 0)
		ksft_exit_fail_perror(cfg.peer_ns_name);

	cfg.tracefs = find_tracefs();
	if (!cfg.tracefs)
		ksft_exit_skip("no tracefs with fib:fib_table_lookup\n");
	snprintf(path, sizeof(path), "%s/events/fib6/fib6_table_lookup",
		 cfg.tracefs);
	if (cfg.have6 && access(path, F_OK))
		ksft_exit_skip("no fib6:fib6_table_lookup event\n");

	/*
	 * -g: the list receive path.  Each packet is read before the next
	 * is sent, so every NAPI poll carries one: no route hints, no GRO
	 * coalescing, the counts stay exact.
	 */
	if (cfg.list_rcv)
		enable_list_rcv();

	counters_open();

	/* Hand what follows "--" to the harness. */
	argv[optind - 1] = argv[0];
	argc -= optind - 1;
	argv += optind - 1;
	optind = 1;
	return test_harness_run(argc, argv);
}

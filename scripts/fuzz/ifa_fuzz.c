// SPDX-License-Identifier: GPL-2.0
/*
 * ifa_fuzz: bounded rtnetlink fuzzer for RTM_NEWADDR / RTM_DELADDR.
 *
 * Runs in a private network namespace on N dummy (or veth) devices, half of
 * them with promote_secondaries=1, and throws random address requests at the
 * kernel.  Errors are expected and only counted.  Invariants:
 *
 *  1. no RTM_GETADDR dump reports IFA_FLAGS with IFA_F_FLUSH (0x1000) set
 *     (checked in every dump; an offending address is counted when it
 *     first shows up, not again while it stays);
 *  2. after flushing every device (IFA_F_FLUSH on primaries) no IPv4
 *     address and no IPv4 route (any table) refers to a fuzzed device.
 *
 * Usage: ifa_fuzz [-s SEED] [-t SECONDS] [-n DEVICES]
 * Exit status: 0 if no invariant was violated, 1 otherwise, 2 on usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/types.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#ifndef IFA_F_FLUSH
#define IFA_F_FLUSH		0x1000
#endif
#ifndef IFA_RT_PRIORITY
#define IFA_RT_PRIORITY		9
#endif

#define DEFAULT_TIME		60
#define MAX_TIME		120
#define DEFAULT_DEVS		2
#define MAX_DEVS		16
#define CHECK_EVERY		200
#define FINAL_BUDGET		15	/* seconds for the final flush and checks */
#define MAX_ADDRS		2048
#define MAX_ERRNO_HIST		4096
#define MAX_PRINTED		10	/* violations printed per invariant */
#define INFINITY_LIFE		0xffffffffU

#define MAX_SEEN		512
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

struct nlreq {
	struct nlmsghdr nh;
	char payload[2048];
};

struct dev {
	char name[IF_NAMESIZE];
	int ifindex;
	int promote;
};

struct addr_ent {
	int family;
	int ifindex;
	__u8 prefixlen;
	__u32 flags;
	bool has_local;
	bool has_addr;
	unsigned char local[16];
	unsigned char addr[16];
};

enum op_type {
	OP_ADD4,
	OP_ADD6,
	OP_DEL4,
	OP_DEL6,
	OP_DEL_DUMP,
	OP_FLUSH,
	OP_NR,
};

static const char * const op_names[OP_NR] = {
	[OP_ADD4]	= "newaddr4",
	[OP_ADD6]	= "newaddr6",
	[OP_DEL4]	= "deladdr4",
	[OP_DEL6]	= "deladdr6",
	[OP_DEL_DUMP]	= "deladdr-from-dump",
	[OP_FLUSH]	= "final-flush",
};

enum inv_type {
	INV_FLUSH_STORED,
	INV_ADDR_LEFT,
	INV_ROUTE_LEFT,
	INV_NR,
};

static const char * const inv_names[INV_NR] = {
	[INV_FLUSH_STORED]	= "1 (IFA_F_FLUSH in dump)",
	[INV_ADDR_LEFT]		= "2 (IPv4 address left after flush)",
	[INV_ROUTE_LEFT]	= "2 (IPv4 route left after flush)",
};

static unsigned long long seed;
static __u64 rng_state;
static unsigned long op_nr;
static unsigned long op_count[OP_NR];
static unsigned long replace_count;
static unsigned long check_count;
static unsigned long dump_fail;
static unsigned long err_hist[MAX_ERRNO_HIST];
static unsigned long violations[INV_NR];

static struct dev devs[MAX_DEVS];
static int ndevs;
static bool use_veth;

static int nl_fd = -1;
static __u32 nl_seq;
/* the union aligns the receive buffer for struct nlmsghdr */
static union {
	struct nlmsghdr nh;
	char buf[1 << 18];
} rx;

static struct addr_ent addrs[MAX_ADDRS];
static int naddrs;

/*
 * Addresses reported with IFA_F_FLUSH by the previous and the current dump:
 * an offending address is counted when it appears, not in every dump that
 * still shows it.
 */
static struct addr_ent bad_prev[MAX_SEEN], bad_cur[MAX_SEEN];
static int nbad_prev, nbad_cur;

/* splitmix64: deterministic for a given seed whatever the libc */
static __u64 rnd64(void)
{
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 rnd(__u32 n)
{
	return n ? (__u32)(rnd64() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

static void violation(enum inv_type inv, const char *fmt, ...)
{
	va_list ap;

	if (++violations[inv] > MAX_PRINTED) {
		if (violations[inv] == MAX_PRINTED + 1)
			printf("VIOLATION inv %s: further reports not printed\n",
			       inv_names[inv]);
		return;
	}
	printf("VIOLATION inv %s seed=%llu op=%lu: ", inv_names[inv], seed,
	       op_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void count_err(int err)
{
	err = -err;
	if (err < 0 || err >= MAX_ERRNO_HIST)
		err = MAX_ERRNO_HIST - 1;
	err_hist[err]++;
}

static int dev_lookup(int ifindex)
{
	int i;

	for (i = 0; i < ndevs; i++)
		if (devs[i].ifindex == ifindex)
			return i;
	return -1;
}

static const char *dev_name(int ifindex)
{
	int i = dev_lookup(ifindex);

	return i < 0 ? "?" : devs[i].name;
}

static const char *addr_str(int family, const void *a, char *buf, size_t len)
{
	if (!inet_ntop(family, a, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

/* ---- netlink plumbing ---- */

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int bufsz = 1 << 20;

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0)
		return -errno;
	if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(nl_fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	setsockopt(nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return 0;
}

static void req_init(struct nlreq *req, __u16 type, __u16 flags, size_t hdr)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_len = NLMSG_LENGTH(hdr);
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | flags;
}

static struct rtattr *req_tail(struct nlreq *req)
{
	return (struct rtattr *)((char *)&req->nh +
				 NLMSG_ALIGN(req->nh.nlmsg_len));
}

static void addattr(struct nlreq *req, int type, const void *data, size_t len)
{
	struct rtattr *rta = req_tail(req);
	size_t off = NLMSG_ALIGN(req->nh.nlmsg_len);

	if (off + RTA_SPACE(len) > sizeof(*req)) {
		fprintf(stderr, "ifa_fuzz: request buffer overflow\n");
		exit(1);
	}
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = off + RTA_SPACE(len);
}

static void addattr_u32(struct nlreq *req, int type, __u32 val)
{
	addattr(req, type, &val, sizeof(val));
}

static struct rtattr *nest_start(struct nlreq *req, int type)
{
	struct rtattr *nest = req_tail(req);

	addattr(req, type, NULL, 0);
	return nest;
}

static void nest_end(struct nlreq *req, struct rtattr *nest)
{
	nest->rta_len = (char *)req_tail(req) - (char *)nest;
}

static int nl_send(struct nlreq *req)
{
	req->nh.nlmsg_seq = ++nl_seq;
	if (send(nl_fd, &req->nh, req->nh.nlmsg_len, 0) < 0)
		return -errno;
	return 0;
}

/*
 * Receive the replies to the last request.  For a plain request, return the
 * error of its ACK (0 or -errno).  For a dump, call @cb on every message and
 * return 0 at NLMSG_DONE, -EINTR if the dump was interrupted.
 */
static int nl_recv(void (*cb)(const struct nlmsghdr *nh))
{
	bool intr = false;

	for (;;) {
		const struct nlmsghdr *nh;
		ssize_t n;
		int len;

		n = recv(nl_fd, rx.buf, sizeof(rx.buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		len = (int)n;
		for (nh = &rx.nh; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != nl_seq)
				continue;	/* late reply to a timed out request */
			if (nh->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = true;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				return e->error;
			}
			if (nh->nlmsg_type == NLMSG_DONE)
				return intr ? -EINTR : 0;
			if (cb)
				cb(nh);
		}
	}
}

static int nl_talk(struct nlreq *req)
{
	int err;

	req->nh.nlmsg_flags |= NLM_F_ACK;
	err = nl_send(req);
	if (err)
		return err;
	return nl_recv(NULL);
}

static int nl_dump(struct nlreq *req, void (*cb)(const struct nlmsghdr *nh),
		   void (*reset)(void))
{
	int tries, err = 0;

	for (tries = 0; tries < 5; tries++) {
		if (reset)
			reset();
		err = nl_send(req);
		if (!err)
			err = nl_recv(cb);
		if (err != -EINTR)
			break;
	}
	if (err)
		dump_fail++;
	return err;
}

/* ---- setup ---- */

static int link_create(const char *name, const char *kind, const char *peer)
{
	struct rtattr *linkinfo, *data, *peerinfo;
	struct nlreq req;

	req_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
		 sizeof(struct ifinfomsg));
	addattr(&req, IFLA_IFNAME, name, strlen(name) + 1);
	linkinfo = nest_start(&req, IFLA_LINKINFO);
	addattr(&req, IFLA_INFO_KIND, kind, strlen(kind));
	if (peer) {
		data = nest_start(&req, IFLA_INFO_DATA);
		peerinfo = nest_start(&req, VETH_INFO_PEER);
		/* struct ifinfomsg (zeroed) precedes the peer's attributes */
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) +
				   NLMSG_ALIGN(sizeof(struct ifinfomsg));
		addattr(&req, IFLA_IFNAME, peer, strlen(peer) + 1);
		nest_end(&req, peerinfo);
		nest_end(&req, data);
	}
	nest_end(&req, linkinfo);
	return nl_talk(&req);
}

static int link_up(int ifindex)
{
	struct nlreq req;
	struct ifinfomsg *ifi;

	req_init(&req, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi = NLMSG_DATA(&req.nh);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_talk(&req);
}

static int link_up_name(const char *name)
{
	int ifindex = if_nametoindex(name);

	if (!ifindex)
		return -errno;
	return link_up(ifindex);
}

static int write_sysctl(const char *dev, const char *knob, int val)
{
	char path[512], buf[16];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", dev,
		 knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d\n", val);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

static int setup(void)
{
	char peer[IF_NAMESIZE];
	int i, err;

	if (unshare(CLONE_NEWNET) < 0) {
		perror("unshare(CLONE_NEWNET)");
		return -1;
	}
	err = nl_open();
	if (err) {
		fprintf(stderr, "netlink socket: %s\n", strerror(-err));
		return -1;
	}
	err = link_up_name("lo");
	if (err) {
		fprintf(stderr, "lo up: %s\n", strerror(-err));
		return -1;
	}
	for (i = 0; i < ndevs; i++) {
		struct dev *d = &devs[i];

		snprintf(d->name, sizeof(d->name), "fz%d", i);
		snprintf(peer, sizeof(peer), "fz%dp", i);
		if (!use_veth) {
			err = link_create(d->name, "dummy", NULL);
			if (err && i == 0) {
				printf("dummy unavailable (%s): falling back to veth pairs\n",
				       strerror(-err));
				use_veth = true;
			}
		}
		if (use_veth) {
			err = link_create(d->name, "veth", peer);
			if (!err)
				err = link_up_name(peer);
		}
		if (err) {
			fprintf(stderr, "create %s: %s\n", d->name,
				strerror(-err));
			return -1;
		}
		d->ifindex = if_nametoindex(d->name);
		if (!d->ifindex) {
			perror(d->name);
			return -1;
		}
		err = link_up(d->ifindex);
		if (err) {
			fprintf(stderr, "%s up: %s\n", d->name, strerror(-err));
			return -1;
		}
		d->promote = i % 2 == 0;
		err = write_sysctl(d->name, "promote_secondaries", d->promote);
		if (err) {
			fprintf(stderr, "%s promote_secondaries: %s\n", d->name,
				strerror(-err));
			return -1;
		}
		printf("device %s ifindex %d (%s) promote_secondaries=%d\n",
		       d->name, d->ifindex, use_veth ? "veth" : "dummy",
		       d->promote);
	}
	return 0;
}

/* ---- address dumps and invariant 1 ---- */

static void addrs_reset(void)
{
	naddrs = 0;
	nbad_cur = 0;
}

/* Record @e as offending in this dump; return whether the last one had it. */
static bool seen_before(const struct addr_ent *e)
{
	int i;

	if (nbad_cur < MAX_SEEN)
		bad_cur[nbad_cur++] = *e;
	for (i = 0; i < nbad_prev; i++)
		if (!memcmp(&bad_prev[i], e, sizeof(*e)))
			return true;
	return false;
}

static void addr_cb(const struct nlmsghdr *nh)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const struct rtattr *rta;
	struct addr_ent e;
	size_t alen;
	int len;

	if (nh->nlmsg_type != RTM_NEWADDR)
		return;
	memset(&e, 0, sizeof(e));	/* padding too: seen_before() memcmp()s */
	len = (int)IFA_PAYLOAD(nh);
	e.family = ifa->ifa_family;
	e.ifindex = ifa->ifa_index;
	e.prefixlen = ifa->ifa_prefixlen;
	e.flags = ifa->ifa_flags;
	alen = e.family == AF_INET ? 4 : 16;
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case IFA_LOCAL:
			if (RTA_PAYLOAD(rta) < alen)
				break;
			memcpy(e.local, RTA_DATA(rta), alen);
			e.has_local = true;
			break;
		case IFA_ADDRESS:
			if (RTA_PAYLOAD(rta) < alen)
				break;
			memcpy(e.addr, RTA_DATA(rta), alen);
			e.has_addr = true;
			break;
		case IFA_FLAGS:
			if (RTA_PAYLOAD(rta) >= sizeof(__u32))
				memcpy(&e.flags, RTA_DATA(rta), sizeof(__u32));
			break;
		}
	}
	if ((e.flags & IFA_F_FLUSH) && !seen_before(&e)) {
		char buf[INET6_ADDRSTRLEN];

		violation(INV_FLUSH_STORED,
			  "ifindex %d (%s) %s/%u flags 0x%x (IFA_F_FLUSH stored: kernel without the patch?)",
			  e.ifindex, dev_name(e.ifindex),
			  addr_str(e.family, e.has_local ? e.local : e.addr,
				   buf, sizeof(buf)),
			  e.prefixlen, e.flags);
	}
	if (dev_lookup(e.ifindex) >= 0 && naddrs < MAX_ADDRS)
		addrs[naddrs++] = e;
}

/* Dump the addresses of @family; keep those on fuzzed devices in addrs[]. */
static int dump_addrs(int family)
{
	struct ifaddrmsg *ifa;
	struct nlreq req;

	memcpy(bad_prev, bad_cur, nbad_cur * sizeof(bad_cur[0]));
	nbad_prev = nbad_cur;
	req_init(&req, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa));
	ifa = NLMSG_DATA(&req.nh);
	ifa->ifa_family = family;
	return nl_dump(&req, addr_cb, addrs_reset);
}

/* ---- random requests ---- */

static const __u32 pool4[] = {
	0x0a000000,	/* 10.0.0.0 */
	0x0a000100,	/* 10.0.1.0 */
	0x0a010000,	/* 10.1.0.0 */
	0xc0a80100,	/* 192.168.1.0 */
};

static __u32 rnd_addr4(void)
{
	__u32 host;

	if (chance(5))
		host = chance(50) ? 0 : 255;
	else
		host = 1 + rnd(6);
	return htonl(pool4[rnd(ARRAY_SIZE(pool4))] | host);
}

static void rnd_addr6(unsigned char *a)
{
	static const unsigned char nets[][8] = {
		{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0 },
		{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 },
		{ 0xfd, 0x00, 0, 0, 0, 0, 0, 0 },
	};

	memset(a, 0, 16);
	memcpy(a, nets[rnd(3)], 8);
	a[15] = 1 + rnd(6);
}

static __u8 rnd_prefix4(void)
{
	__u32 r = rnd(100);

	if (r < 35)
		return 24;
	if (r < 55)
		return 16;
	if (r < 65)
		return 8;
	if (r < 67)
		return 33 + rnd(223);	/* invalid */
	return rnd(33);
}

static __u8 rnd_prefix6(void)
{
	__u32 r = rnd(100);

	if (r < 60)
		return 64;
	if (r < 62)
		return 129 + rnd(127);	/* invalid */
	return rnd(129);
}

static __u32 rnd_flags(void)
{
	switch (rnd(10)) {
	case 0:
	case 1:
		return 0;
	case 2:
	case 3:
		return IFA_F_FLUSH;
	case 4:
		return IFA_F_SECONDARY;
	case 5:
		return IFA_F_NODAD;
	case 6:
		return IFA_F_FLUSH | IFA_F_SECONDARY;
	case 7:
		return IFA_F_FLUSH | IFA_F_NODAD | rnd(0x1000);
	case 8:
		return (__u32)rnd64();
	default:
		return rnd(0x2000);
	}
}

static __u32 rnd_lifetime(void)
{
	switch (rnd(4)) {
	case 0:
	case 1:
		return INFINITY_LIFE;
	case 2:
		return 1 + rnd(30);
	default:
		return (__u32)rnd64();
	}
}

static int rnd_ifindex(void)
{
	if (chance(3))
		return chance(50) ? 0 : 9999;
	return devs[rnd(ndevs)].ifindex;
}

static void add_label(struct nlreq *req, int ifindex)
{
	char label[2 * IF_NAMESIZE];
	const char *name = dev_name(ifindex);

	switch (rnd(4)) {
	case 0:
		snprintf(label, sizeof(label), "%s", name);
		break;
	case 1:
		snprintf(label, sizeof(label), "%s:%u", name, rnd(4));
		break;
	case 2:
		snprintf(label, sizeof(label), "bogus%u", rnd(10));
		break;
	default:
		/* too long for IFNAMSIZ */
		snprintf(label, sizeof(label), "%s:0123456789abcdef", name);
		break;
	}
	addattr(req, IFA_LABEL, label, strlen(label) + 1);
}

static void add_addr_attr(struct nlreq *req, int type, int family)
{
	unsigned char a6[16];
	__u32 a4;

	if (family == AF_INET) {
		a4 = rnd_addr4();
		addattr(req, type, &a4, sizeof(a4));
	} else {
		rnd_addr6(a6);
		addattr(req, type, a6, sizeof(a6));
	}
}

static int op_newaddr(void)
{
	int family = chance(80) ? AF_INET : AF_INET6;
	struct ifaddrmsg *ifa;
	struct nlreq req;
	__u16 flags = NLM_F_CREATE;
	__u32 ifa_flags = rnd_flags();

	if (chance(3))
		flags = 0;
	if (chance(15)) {
		flags |= NLM_F_REPLACE;
		replace_count++;
	}
	if (chance(10))
		flags |= NLM_F_EXCL;
	req_init(&req, RTM_NEWADDR, flags, sizeof(*ifa));
	ifa = NLMSG_DATA(&req.nh);
	ifa->ifa_family = family;
	ifa->ifa_index = rnd_ifindex();
	ifa->ifa_prefixlen = family == AF_INET ? rnd_prefix4() : rnd_prefix6();
	ifa->ifa_flags = chance(50) ? 0 : (__u8)ifa_flags;
	if (chance(15))
		ifa->ifa_scope = chance(50) ? RT_SCOPE_LINK : rnd(256);

	if (chance(85)) {
		unsigned char *local = RTA_DATA(req_tail(&req));

		add_addr_attr(&req, IFA_LOCAL, family);
		if (chance(30))
			addattr(&req, IFA_ADDRESS, local,
				family == AF_INET ? 4 : 16);
		else if (chance(30))
			add_addr_attr(&req, IFA_ADDRESS, family);
	} else if (chance(70)) {
		add_addr_attr(&req, IFA_ADDRESS, family);
	}
	if (chance(20))
		add_label(&req, ifa->ifa_index);
	if (family == AF_INET && chance(15)) {
		if (chance(30))
			addattr_u32(&req, IFA_BROADCAST, INADDR_BROADCAST);
		else
			add_addr_attr(&req, IFA_BROADCAST, AF_INET);
	}
	if (chance(15)) {
		struct ifa_cacheinfo ci = {
			.ifa_prefered = rnd_lifetime(),
			.ifa_valid = rnd_lifetime(),
		};

		addattr(&req, IFA_CACHEINFO, &ci, sizeof(ci));
	}
	if (chance(70))
		addattr_u32(&req, IFA_FLAGS, ifa_flags);
	if (chance(5))
		addattr_u32(&req, IFA_RT_PRIORITY, (__u32)rnd64());

	op_count[family == AF_INET ? OP_ADD4 : OP_ADD6]++;
	return nl_talk(&req);
}

static int op_deladdr(void)
{
	int family = chance(80) ? AF_INET : AF_INET6;
	struct ifaddrmsg *ifa;
	struct nlreq req;

	req_init(&req, RTM_DELADDR, 0, sizeof(*ifa));
	ifa = NLMSG_DATA(&req.nh);
	ifa->ifa_family = family;
	ifa->ifa_index = rnd_ifindex();
	ifa->ifa_prefixlen = family == AF_INET ? rnd_prefix4() : rnd_prefix6();
	if (chance(80))
		add_addr_attr(&req, IFA_LOCAL, family);
	if (chance(40))
		add_addr_attr(&req, IFA_ADDRESS, family);
	if (chance(10))
		add_label(&req, ifa->ifa_index);
	if (chance(60))
		addattr_u32(&req, IFA_FLAGS, rnd_flags());

	op_count[family == AF_INET ? OP_DEL4 : OP_DEL6]++;
	return nl_talk(&req);
}

static int del_entry(const struct addr_ent *e, __u32 flags, bool set_flags)
{
	size_t alen = e->family == AF_INET ? 4 : 16;
	struct ifaddrmsg *ifa;
	struct nlreq req;

	req_init(&req, RTM_DELADDR, 0, sizeof(*ifa));
	ifa = NLMSG_DATA(&req.nh);
	ifa->ifa_family = e->family;
	ifa->ifa_index = e->ifindex;
	ifa->ifa_prefixlen = e->prefixlen;
	if (e->has_local)
		addattr(&req, IFA_LOCAL, e->local, alen);
	if (e->has_addr && (!e->has_local || e->family == AF_INET6))
		addattr(&req, IFA_ADDRESS, e->addr, alen);
	if (set_flags)
		addattr_u32(&req, IFA_FLAGS, flags);
	return nl_talk(&req);
}

static int op_del_from_dump(void)
{
	const struct addr_ent *e;
	__u32 flags;
	int err;

	err = dump_addrs(chance(80) ? AF_INET : AF_UNSPEC);
	if (err)
		return err;
	if (!naddrs)
		return op_deladdr();
	e = &addrs[rnd(naddrs)];
	switch (rnd(5)) {
	case 0:
	case 1:
		flags = IFA_F_FLUSH;
		break;
	case 2:
		flags = 0;
		break;
	default:
		flags = rnd_flags();
		break;
	}
	op_count[OP_DEL_DUMP]++;
	return del_entry(e, flags, !chance(10));
}

/* ---- final flush and invariant 2 ---- */

static void route_cb(const struct nlmsghdr *nh)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	const struct rtattr *rta;
	unsigned char dst[4] = { 0 };
	__u32 table = rtm->rtm_table;
	char buf[INET_ADDRSTRLEN];
	int len, oif = 0;

	if (nh->nlmsg_type != RTM_NEWROUTE || rtm->rtm_family != AF_INET)
		return;
	len = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case RTA_OIF:
			if (RTA_PAYLOAD(rta) >= sizeof(__u32))
				memcpy(&oif, RTA_DATA(rta), sizeof(__u32));
			break;
		case RTA_DST:
			if (RTA_PAYLOAD(rta) >= sizeof(dst))
				memcpy(dst, RTA_DATA(rta), sizeof(dst));
			break;
		case RTA_TABLE:
			if (RTA_PAYLOAD(rta) >= sizeof(__u32))
				memcpy(&table, RTA_DATA(rta), sizeof(__u32));
			break;
		}
	}
	if (oif && dev_lookup(oif) >= 0)
		violation(INV_ROUTE_LEFT,
			  "route %s/%u table %u type %u dev %s still present",
			  addr_str(AF_INET, dst, buf, sizeof(buf)),
			  rtm->rtm_dst_len, table, rtm->rtm_type,
			  dev_name(oif));
}

static void final_flush(void)
{
	char buf[INET_ADDRSTRLEN];
	int round, i, err;

	for (round = 0; round < 64; round++) {
		struct addr_ent batch[MAX_ADDRS];
		int n;

		err = dump_addrs(AF_INET);
		if (err) {
			printf("final flush: address dump failed: %s\n",
			       strerror(-err));
			break;
		}
		if (!naddrs)
			break;
		n = naddrs;
		memcpy(batch, addrs, n * sizeof(batch[0]));
		for (i = 0; i < n; i++) {
			bool primary = !(batch[i].flags & IFA_F_SECONDARY);

			op_nr++;
			op_count[OP_FLUSH]++;
			count_err(del_entry(&batch[i],
					    primary ? IFA_F_FLUSH : 0, true));
		}
	}

	op_nr++;
	check_count++;
	err = dump_addrs(AF_INET);
	if (err)
		printf("final check: address dump failed: %s\n",
		       strerror(-err));
	for (i = 0; i < naddrs; i++)
		violation(INV_ADDR_LEFT, "%s/%u flags 0x%x still on %s",
			  addr_str(AF_INET, addrs[i].has_local ?
				   addrs[i].local : addrs[i].addr,
				   buf, sizeof(buf)),
			  addrs[i].prefixlen, addrs[i].flags,
			  dev_name(addrs[i].ifindex));
}

static void check_routes(void)
{
	struct rtmsg *rtm;
	struct nlreq req;
	int err;

	req_init(&req, RTM_GETROUTE, NLM_F_DUMP, sizeof(*rtm));
	rtm = NLMSG_DATA(&req.nh);
	rtm->rtm_family = AF_INET;
	err = nl_dump(&req, route_cb, NULL);
	if (err)
		printf("final check: route dump failed: %s\n", strerror(-err));
}

/* ---- main ---- */

static void on_alarm(int sig)
{
	static const char msg[] = "ifa_fuzz: watchdog: time limit exceeded\n";
	ssize_t ret;

	(void)sig;
	ret = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)ret;
	_exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t SECONDS (1..%d, default %d)] [-n DEVICES (1..%d, default %d)]\n",
		prog, MAX_TIME, DEFAULT_TIME, MAX_DEVS, DEFAULT_DEVS);
	exit(2);
}

static long parse_num(const char *s, const char *prog)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || !*s || *end)
		print_usage(prog);
	return v;
}

static void print_totals(void)
{
	unsigned long total = 0, nviol = 0;
	int i;

	for (i = 0; i < OP_NR; i++)
		total += op_count[i];
	printf("ops: %lu (", op_nr);
	for (i = 0; i < OP_NR; i++)
		printf("%s%s %lu", i ? ", " : "", op_names[i], op_count[i]);
	printf("; with NLM_F_REPLACE %lu)\n", replace_count);
	printf("invariant checks: %lu, failed dumps: %lu\n", check_count,
	       dump_fail);
	printf("replies by errno:\n");
	for (i = 0; i < MAX_ERRNO_HIST; i++) {
		if (!err_hist[i])
			continue;
		printf("  %4d %-28s %lu\n", i, i ? strerror(i) : "(ok)",
		       err_hist[i]);
	}
	for (i = 0; i < INV_NR; i++) {
		printf("violations of invariant %s: %lu\n", inv_names[i],
		       violations[i]);
		nviol += violations[i];
	}
	if (violations[INV_FLUSH_STORED])
		printf("hint: IFA_F_FLUSH stored: kernel without the patch?\n");
	printf("result: %s (seed %llu)\n", nviol ? "FAIL" : "PASS", seed);
}

int main(int argc, char **argv)
{
	long secs = DEFAULT_TIME, n = DEFAULT_DEVS;
	bool have_seed = false;
	double deadline;
	int opt, err;

	while ((opt = getopt(argc, argv, "s:t:n:h")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 't':
			secs = parse_num(optarg, argv[0]);
			break;
		case 'n':
			n = parse_num(optarg, argv[0]);
			break;
		default:
			print_usage(argv[0]);
		}
	}
	if (optind != argc || secs < 1 || secs > MAX_TIME || n < 1 ||
	    n > MAX_DEVS)
		print_usage(argv[0]);
	ndevs = n;
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000000ULL +
		       ts.tv_nsec;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed: %llu\n", seed);
	printf("replay: %s -s %llu -t %ld -n %d\n", argv[0], seed, secs,
	       ndevs);
	rng_state = seed;

	signal(SIGALRM, on_alarm);
	alarm(secs + FINAL_BUDGET + 5);
	if (setup())
		return 1;

	deadline = now() + secs;
	while (now() < deadline) {
		__u32 r = rnd(100);

		op_nr++;
		if (r < 55)
			err = op_newaddr();
		else if (r < 80)
			err = op_deladdr();
		else
			err = op_del_from_dump();
		count_err(err);
		if (op_nr % CHECK_EVERY == 0) {
			check_count++;
			dump_addrs(AF_UNSPEC);
		}
	}
	printf("fuzzing done after %lu ops; final checks\n", op_nr);
	check_count++;
	dump_addrs(AF_UNSPEC);
	final_flush();
	check_routes();
	print_totals();
	return violations[INV_FLUSH_STORED] || violations[INV_ADDR_LEFT] ||
	       violations[INV_ROUTE_LEFT];
}

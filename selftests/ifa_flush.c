// SPDX-License-Identifier: GPL-2.0
/*
 * IFA_F_FLUSH in IFA_FLAGS of an IPv4 RTM_DELADDR: deleting a primary
 * address also deletes its secondaries (same prefix length and subnet),
 * each with its own RTM_DELADDR notification, and promotes none of them,
 * whatever net.ipv4.conf.DEV.promote_secondaries says.  The flag is
 * rejected on RTM_NEWADDR and ignored by IPv6.
 *
 * Each test runs in its own network namespace with a dummy device carrying
 * three IPv4 subnets:
 *
 *   A  10.1.0.0/24  10.1.0.1 (primary), 10.1.0.2, 10.1.0.3, 10.1.0.4
 *   B  10.2.0.0/24  10.2.0.1 (primary), 10.2.0.2
 *   C  10.1.0.0/16  10.1.7.1 (primary: A's range with another mask)
 *
 * and checks the address dump, the RTNLGRP_IPV4_IFADDR notifications and
 * the local, broadcast and prefix routes of each subnet.
 *
 * A kernel without IFA_F_FLUSH stores the bit on RTM_NEWADDR instead of
 * rejecting it: the tests of the flag SKIP there (probed on RTM_NEWADDR,
 * not on the delete path they test).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

#include "kselftest_harness.h"

#ifndef IFA_F_FLUSH
#define IFA_F_FLUSH	0x1000
#endif

#define DEV		"ifaf0"
#define MAX_ENTRIES	64
/* Returned by nl_talk() when the socket itself fails (not an errno). */
#define NL_SOCK_ERR	INT_MIN

struct nl_req {
	union {
		struct nlmsghdr nlh;
		char buf[1024];
	};
};

/* An address from a dump or a notification. */
struct ifa_ent {
	int type;		/* RTM_NEWADDR or RTM_DELADDR */
	int family;
	int ifindex;
	int prefixlen;
	__u32 flags;		/* IFA_FLAGS, or ifa_flags without it */
	unsigned char addr[16];	/* IFA_LOCAL, or IFA_ADDRESS without it */
};

struct ifa_list {
	struct ifa_ent e[MAX_ENTRIES];
	int n;
	int overflow;
};

struct rt_ent {
	int table;
	int type;
	int dst_len;
	__u32 dst;
	__u32 prefsrc;
};

struct rt_list {
	struct rt_ent e[MAX_ENTRIES];
	int n;
	int overflow;
	int ifindex;
};

/* Addresses, notifications since the last snapshot and routes. */
struct snap {
	struct ifa_list addrs;
	struct ifa_list ev;
	struct rt_list rts;
};

struct ctx {
	int nl;		/* requests */
	int mon;	/* address notifications */
	int ifindex;
	int flag_known;	/* RTM_NEWADDR rejects IFA_F_FLUSH */
};

#define FLAG_MSG	"ipv4: IFA_F_FLUSH is only valid for RTM_DELADDR"

/* Why a test of the flag SKIPs on a kernel that does not know it. */
#define NO_FLAG		"kernel without IFA_F_FLUSH (RTM_NEWADDR stores the bit)"

struct subnet {
	const char *prefix;
	int plen;
	const char *brd;
	const char *addrs[4];
};

static const struct subnet layout[] = {
	{ "10.1.0.0", 24, "10.1.0.255",
	  { "10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4" } },
	{ "10.2.0.0", 24, "10.2.0.255", { "10.2.0.1", "10.2.0.2" } },
	{ "10.1.0.0", 16, "10.1.255.255", { "10.1.7.1" } },
};

#define NSUBNETS	ARRAY_SIZE(layout)

/*
 * State of each address of each subnet, as set up: 'P' primary,
 * 'S' secondary ('-' absent in the expectations of the tests).
 */
static const char * const untouched[NSUBNETS] = { "PSSS", "PS", "P" };

static __u32 ip4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return 0;
	return a.s_addr;
}

static int write_file(const char *path, const char *val)
{
	ssize_t len = strlen(val);
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int nl_join(int fd, int group)
{
	return setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
			  sizeof(group));
}

static void *req_init(struct nl_req *r, int type, int flags, size_t hdrlen)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(hdrlen);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	return r->buf + NLMSG_HDRLEN;
}

static struct nlattr *req_put(struct nl_req *r, int type, const void *data,
			      size_t len)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)(r->buf + off);

	if (off + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(r->buf))
		abort();
	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)nla + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
	return nla;
}

static void req_put_str(struct nl_req *r, int type, const char *s)
{
	req_put(r, type, s, strlen(s) + 1);
}

static void req_nest_end(struct nl_req *r, struct nlattr *nest)
{
	nest->nla_len = r->buf + r->nlh.nlmsg_len - (char *)nest;
}

/* The extack message of an ack, or NULL. */
static const char *ack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = NLMSG_DATA(nlh);
	const struct nlattr *nla;
	size_t off;
	int rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
		return NULL;
	off = NLMSG_HDRLEN + sizeof(*err);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - NLMSG_HDRLEN;
	if (off > nlh->nlmsg_len)
		return NULL;
	rem = nlh->nlmsg_len - off;
	nla = (const void *)((const char *)nlh + off);
	while (rem >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= rem) {
		if ((nla->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    nla->nla_len > NLA_HDRLEN)
			return (const char *)nla + NLA_HDRLEN;
		rem -= NLA_ALIGN(nla->nla_len);
		nla = (const void *)((const char *)nla +
				     NLA_ALIGN(nla->nla_len));
	}
	return NULL;
}

/*
 * Send a request and read its ack: 0 or -errno from the kernel (with the
 * extack message in msg, "" if none), or NL_SOCK_ERR.
 */
static int nl_talk(int fd, struct nl_req *r, char *msg, size_t msglen)
{
	static unsigned int seq;
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	} u;

	if (msg && msglen)
		msg[0] = '\0';
	r->nlh.nlmsg_seq = ++seq;
	if (send(fd, &r->nlh, r->nlh.nlmsg_len, 0) != (ssize_t)r->nlh.nlmsg_len)
		return NL_SOCK_ERR;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = recv(fd, u.buf, sizeof(u.buf), 0);
		int rem = len;

		if (len < 0)
			return NL_SOCK_ERR;
		for (nlh = &u.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			const struct nlmsgerr *err = NLMSG_DATA(nlh);
			const char *m;

			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
				return NL_SOCK_ERR;
			m = ack_msg(nlh);
			if (m && msg && msglen)
				snprintf(msg, msglen, "%s", m);
			return err->error;
		}
	}
}

static void parse_ifa(const struct nlmsghdr *nlh, void *arg)
{
	const struct ifaddrmsg *ifm = NLMSG_DATA(nlh);
	struct ifa_list *l = arg;
	const struct rtattr *rta;
	struct ifa_ent *e;
	int have_local = 0;
	int rem;

	if ((nlh->nlmsg_type != RTM_NEWADDR &&
	     nlh->nlmsg_type != RTM_DELADDR) ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifm)))
		return;
	if (l->n == MAX_ENTRIES) {
		l->overflow = 1;
		return;
	}
	e = &l->e[l->n++];
	memset(e, 0, sizeof(*e));
	e->type = nlh->nlmsg_type;
	e->family = ifm->ifa_family;
	e->ifindex = ifm->ifa_index;
	e->prefixlen = ifm->ifa_prefixlen;
	e->flags = ifm->ifa_flags;
	rem = IFA_PAYLOAD(nlh);
	for (rta = IFA_RTA(ifm); RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem)) {
		size_t len = RTA_PAYLOAD(rta);

		if (len > sizeof(e->addr))
			len = sizeof(e->addr);
		switch (rta->rta_type) {
		case IFA_FLAGS:
			if (len == 4)
				memcpy(&e->flags, RTA_DATA(rta), 4);
			break;
		case IFA_LOCAL:
			memcpy(e->addr, RTA_DATA(rta), len);
			have_local = 1;
			break;
		case IFA_ADDRESS:
			if (!have_local)
				memcpy(e->addr, RTA_DATA(rta), len);
			break;
		}
	}
}

static void parse_rt(const struct nlmsghdr *nlh, void *arg)
{
	const struct rtmsg *rtm = NLMSG_DATA(nlh);
	struct rt_list *l = arg;
	const struct rtattr *rta;
	struct rt_ent e = {};
	int oif = 0;
	int rem;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_family != AF_INET)
		return;
	e.table = rtm->rtm_table;
	e.type = rtm->rtm_type;
	e.dst_len = rtm->rtm_dst_len;
	rem = RTM_PAYLOAD(nlh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem)) {
		if (RTA_PAYLOAD(rta) != 4)
			continue;
		switch (rta->rta_type) {
		case RTA_TABLE:
			memcpy(&e.table, RTA_DATA(rta), 4);
			break;
		case RTA_DST:
			memcpy(&e.dst, RTA_DATA(rta), 4);
			break;
		case RTA_PREFSRC:
			memcpy(&e.prefsrc, RTA_DATA(rta), 4);
			break;
		case RTA_OIF:
			memcpy(&oif, RTA_DATA(rta), 4);
			break;
		}
	}
	if (oif != l->ifindex)
		return;
	if (l->n == MAX_ENTRIES) {
		l->overflow = 1;
		return;
	}
	l->e[l->n++] = e;
}

/* Dump addresses or routes of a family; 0 or -1. */
static int nl_dump(int fd, int type, int family,
		   void (*cb)(const struct nlmsghdr *, void *), void *arg)
{
	union {
		struct nlmsghdr nlh;
		char buf[32768];
	} u;
	static unsigned int seq = 1u << 30;
	struct {
		struct nlmsghdr nlh;
		struct rtmsg rtm;
	} req = {};

	req.nlh.nlmsg_type = type;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nlh.nlmsg_seq = ++seq;
	/* ifaddrmsg and rtmsg both start with the family */
	req.nlh.nlmsg_len = NLMSG_LENGTH(type == RTM_GETADDR ?
					 sizeof(struct ifaddrmsg) :
					 sizeof(struct rtmsg));
	req.rtm.rtm_family = family;
	if (send(fd, &req, req.nlh.nlmsg_len, 0) != (ssize_t)req.nlh.nlmsg_len)
		return -1;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = recv(fd, u.buf, sizeof(u.buf), 0);
		int rem = len;

		if (len < 0)
			return -1;
		for (nlh = &u.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return -1;
			cb(nlh, arg);
		}
	}
}

/* Read the pending notifications; 0 or -1 (e.g. ENOBUFS: some lost). */
static int mon_read(int fd, struct ifa_list *l)
{
	union {
		struct nlmsghdr nlh;
		char buf[32768];
	} u;

	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = recv(fd, u.buf, sizeof(u.buf), MSG_DONTWAIT);
		int rem = len;

		if (len < 0)
			return errno == EAGAIN ? 0 : -1;
		for (nlh = &u.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem))
			parse_ifa(nlh, l);
	}
}

static int link_up(struct ctx *c, const char *name)
{
	struct nl_req r;
	struct ifinfomsg *ifi;

	ifi = req_init(&r, RTM_NEWLINK, 0, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = if_nametoindex(name);
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	return nl_talk(c->nl, &r, NULL, 0);
}

static int link_create(struct ctx *c, const char *kind)
{
	struct nlattr *linkinfo;
	struct ifinfomsg *ifi;
	struct nl_req r;

	ifi = req_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL,
		       sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	req_put_str(&r, IFLA_IFNAME, DEV);
	linkinfo = req_put(&r, IFLA_LINKINFO, NULL, 0);
	req_put_str(&r, IFLA_INFO_KIND, kind);
	req_nest_end(&r, linkinfo);
	return nl_talk(c->nl, &r, NULL, 0);
}

static int addr_req(struct ctx *c, int type, int nlflags, int family,
		    const char *addr, int plen, __u32 flags,
		    char *msg, size_t msglen)
{
	unsigned char a[16];
	struct ifaddrmsg *ifm;
	struct nl_req r;
	size_t alen = family == AF_INET ? 4 : 16;

	if (inet_pton(family, addr, a) != 1)
		return NL_SOCK_ERR;
	ifm = req_init(&r, type, nlflags, sizeof(*ifm));
	ifm->ifa_family = family;
	ifm->ifa_prefixlen = plen;
	ifm->ifa_index = c->ifindex;
	if (family == AF_INET)
		req_put(&r, IFA_LOCAL, a, alen);
	req_put(&r, IFA_ADDRESS, a, alen);
	if (flags)
		req_put(&r, IFA_FLAGS, &flags, sizeof(flags));
	return nl_talk(c->nl, &r, msg, msglen);
}

static int addr_add(struct ctx *c, int family, const char *addr, int plen,
		    __u32 flags)
{
	return addr_req(c, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, family,
			addr, plen, flags, NULL, 0);
}

static int del4(struct ctx *c, const char *addr, int plen, __u32 flags)
{
	return addr_req(c, RTM_DELADDR, 0, AF_INET, addr, plen, flags,
			NULL, 0);
}

static void ctx_setup(struct __test_metadata *_metadata, struct ctx *c,
		      int promote)
{
	char path[PATH_MAX];
	unsigned int i, j;
	int err;

	c->nl = -1;
	c->mon = -1;
	if (unshare(CLONE_NEWNET))
		SKIP(return, "unshare(CLONE_NEWNET): %s", strerror(errno));
	/* No IPv6 link-local address: no notification but ours. */
	write_file("/proc/sys/net/ipv6/conf/default/addr_gen_mode", "1");

	c->nl = nl_open();
	ASSERT_LE(0, c->nl);
	err = link_create(c, "dummy");
	ASSERT_EQ(0, err) TH_LOG("dummy device: %s", strerror(-err));
	c->ifindex = if_nametoindex(DEV);
	ASSERT_LT(0, c->ifindex);
	/*
	 * The kernel promotes if conf/all or conf/DEV says so, and a new
	 * namespace copies conf/all from init_net, where e.g. systemd sets it.
	 */
	snprintf(path, sizeof(path),
		 "/proc/sys/net/ipv4/conf/%s/promote_secondaries", "all");
	ASSERT_EQ(0, write_file(path, promote ? "1" : "0"));
	snprintf(path, sizeof(path),
		 "/proc/sys/net/ipv4/conf/%s/promote_secondaries", DEV);
	ASSERT_EQ(0, write_file(path, promote ? "1" : "0"));
	ASSERT_EQ(0, link_up(c, DEV));

	for (i = 0; i < NSUBNETS; i++)
		for (j = 0; j < ARRAY_SIZE(layout[i].addrs); j++) {
			if (!layout[i].addrs[j])
				continue;
			ASSERT_EQ(0, addr_add(c, AF_INET, layout[i].addrs[j],
					      layout[i].plen, 0));
		}

	/*
	 * Does the kernel know the flag?  One that does rejects it on
	 * RTM_NEWADDR; one that does not stores it (then take it back).
	 */
	err = addr_req(c, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, AF_INET,
		       "10.3.0.1", 24, IFA_F_FLUSH, NULL, 0);
	c->flag_known = err == -EINVAL;
	if (!c->flag_known) {
		ASSERT_EQ(0, err);
		ASSERT_EQ(0, del4(c, "10.3.0.1", 24, 0));
	}

	c->mon = nl_open();
	ASSERT_LE(0, c->mon);
	ASSERT_EQ(0, nl_join(c->mon, RTNLGRP_IPV4_IFADDR));
	ASSERT_EQ(0, nl_join(c->mon, RTNLGRP_IPV6_IFADDR));
}

static void ctx_teardown(struct ctx *c)
{
	if (c->mon >= 0)
		close(c->mon);
	if (c->nl >= 0)
		close(c->nl);
}

/*
 * The IPv4 addresses and routes of the device, and the notifications
 * received since the last snapshot.  IFA_F_FLUSH is never reported.
 */
static void snap_take(struct __test_metadata *_metadata, struct ctx *c,
		      struct snap *s, int family)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->rts.ifindex = c->ifindex;
	ASSERT_EQ(0, mon_read(c->mon, &s->ev));
	ASSERT_EQ(0, nl_dump(c->nl, RTM_GETADDR, family, parse_ifa,
			     &s->addrs));
	ASSERT_EQ(0, nl_dump(c->nl, RTM_GETROUTE, AF_INET, parse_rt,
			     &s->rts));
	ASSERT_EQ(0, s->ev.overflow);
	ASSERT_EQ(0, s->addrs.overflow);
	ASSERT_EQ(0, s->rts.overflow);
	for (i = 0; i < s->addrs.n; i++)
		EXPECT_EQ(0u, s->addrs.e[i].flags & IFA_F_FLUSH);
	for (i = 0; i < s->ev.n; i++)
		EXPECT_EQ(0u, s->ev.e[i].flags & IFA_F_FLUSH);
}

static const struct ifa_ent *ent_find(const struct ifa_list *l, int type,
				      int family, const char *addr,
				      int plen, int ifindex, int *count)
{
	const struct ifa_ent *found = NULL;
	unsigned char a[16] = {};
	int i;

	*count = 0;
	if (inet_pton(family, addr, a) != 1)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct ifa_ent *e = &l->e[i];

		if (e->type == type && e->family == family &&
		    e->ifindex == ifindex && e->prefixlen == plen &&
		    !memcmp(e->addr, a, sizeof(a))) {
			found = e;
			(*count)++;
		}
	}
	return found;
}

/* 'P' primary, 'S' secondary, '-' absent, '2' listed twice */
static char addr_state(const struct snap *s, int family, const char *addr,
		       int plen, int ifindex)
{
	const struct ifa_ent *e;
	int n;

	e = ent_find(&s->addrs, RTM_NEWADDR, family, addr, plen, ifindex, &n);
	if (n > 1)
		return '2';
	if (!e)
		return '-';
	return e->flags & IFA_F_SECONDARY ? 'S' : 'P';
}

static int ev_total(const struct snap *s, int type, int family)
{
	int i, n = 0;

	for (i = 0; i < s->ev.n; i++)
		if (s->ev.e[i].type == type && s->ev.e[i].family == family)
			n++;
	return n;
}

/* Number of routes (table, type, dst/len), prefsrc of the last one. */
static int route_find(const struct snap *s, int table, int type,
		      const char *dst, int len, __u32 *prefsrc)
{
	__u32 d = ip4(dst);
	int i, n = 0;

	for (i = 0; i < s->rts.n; i++) {
		const struct rt_ent *e = &s->rts.e[i];

		if (e->table == table && e->type == type && e->dst == d &&
		    e->dst_len == len) {
			*prefsrc = e->prefsrc;
			n++;
		}
	}
	return n;
}

static void expect_route(struct __test_metadata *_metadata,
			 const struct snap *s, int table, int type,
			 const char *dst, int len, const char *prefsrc)
{
	char src[INET_ADDRSTRLEN] = "none";
	__u32 got = 0;
	int n;

	n = route_find(s, table, type, dst, len, &got);
	if (n)
		inet_ntop(AF_INET, &got, src, sizeof(src));
	EXPECT_EQ(prefsrc ? 1 : 0, n)
		TH_LOG("table %d type %d %s/%d: %d routes, expected src %s",
		       table, type, dst, len, n, prefsrc ? prefsrc : "none");
	/* braces: a handler after EXPECT_*() is not part of its statement */
	if (prefsrc && n == 1) {
		EXPECT_EQ(ip4(prefsrc), got)
			TH_LOG("table %d type %d %s/%d: src %s, expected %s",
			       table, type, dst, len, src, prefsrc);
	}
}

/*
 * Check addresses and routes against exp[i][j], the expected state of
 * layout[i].addrs[j]: 'P' primary, 'S' secondary, '-' absent.  A present
 * address has a local route, a subnet with an address left has its prefix
 * and broadcast routes, all of them with the primary as prefsrc; a removed
 * address or subnet has no route left.
 */
static void expect_layout(struct __test_metadata *_metadata,
			  const struct snap *s, const char * const *exp)
{
	unsigned int i, j;
	int present = 0;

	for (i = 0; i < NSUBNETS; i++) {
		const struct subnet *sn = &layout[i];
		const char *prim = NULL;

		for (j = 0; j < strlen(exp[i]); j++)
			if (exp[i][j] == 'P')
				prim = sn->addrs[j];

		for (j = 0; j < strlen(exp[i]); j++) {
			char st = addr_state(s, AF_INET, sn->addrs[j],
					     sn->plen, s->rts.ifindex);

			EXPECT_EQ(exp[i][j], st)
				TH_LOG("%s/%d: state %c, expected %c",
				       sn->addrs[j], sn->plen, st, exp[i][j]);
			expect_route(_metadata, s, RT_TABLE_LOCAL, RTN_LOCAL,
				     sn->addrs[j], 32,
				     exp[i][j] == '-' ? NULL : prim);
		}
		expect_route(_metadata, s, RT_TABLE_LOCAL, RTN_BROADCAST,
			     sn->brd, 32, prim);
		expect_route(_metadata, s, RT_TABLE_MAIN, RTN_UNICAST,
			     sn->prefix, sn->plen, prim);
	}
	/* and no other address */
	for (i = 0; i < NSUBNETS; i++)
		for (j = 0; j < strlen(exp[i]); j++)
			present += exp[i][j] != '-';
	EXPECT_EQ(present, s->addrs.n);
}

static void expect_ev_type(struct __test_metadata *_metadata,
			   const struct snap *s, int type, int family,
			   const char * const *list)
{
	const char *name = type == RTM_DELADDR ? "RTM_DELADDR" :
						 "RTM_NEWADDR";
	int total = 0;

	for (; list && *list; list++, total++) {
		const struct ifa_ent *e;
		char addr[INET6_ADDRSTRLEN];
		const char *slash;
		int n;

		slash = strchr(*list, '/');
		ASSERT_TRUE(!!slash);
		snprintf(addr, sizeof(addr), "%.*s", (int)(slash - *list),
			 *list);
		e = ent_find(&s->ev, type, family, addr, atoi(slash + 1),
			     s->rts.ifindex, &n);
		EXPECT_EQ(1, n)
			TH_LOG("%s %s: %d notifications, expected 1",
			       name, *list, n);
		if (e && type == RTM_NEWADDR) {
			EXPECT_EQ(0u, e->flags & IFA_F_SECONDARY)
				TH_LOG("%s %s: still secondary", name, *list);
		}
	}
	EXPECT_EQ(total, ev_total(s, type, family))
		TH_LOG("%d %s notifications (family %d), expected %d",
		       ev_total(s, type, family), name, family, total);
}

/*
 * Exactly one RTM_DELADDR notification for each address of del, one
 * RTM_NEWADDR (of a primary) for each address of add, and no other address
 * notification of the family.
 */
static void expect_events(struct __test_metadata *_metadata,
			  const struct snap *s, int family,
			  const char * const *del, const char * const *add)
{
	expect_ev_type(_metadata, s, RTM_DELADDR, family, del);
	expect_ev_type(_metadata, s, RTM_NEWADDR, family, add);
}

static const char * const a_all[] = {
	"10.1.0.1/24", "10.1.0.2/24", "10.1.0.3/24", "10.1.0.4/24", NULL
};

FIXTURE(promote)
{
	struct ctx c;
};

FIXTURE_VARIANT(promote)
{
	int promote;	/* net.ipv4.conf.DEV.promote_secondaries */
};

FIXTURE_VARIANT_ADD(promote, on)
{
	.promote = 1,
};

FIXTURE_VARIANT_ADD(promote, off)
{
	.promote = 0,
};

FIXTURE_SETUP(promote)
{
	ctx_setup(_metadata, &self->c, variant->promote);
}

FIXTURE_TEARDOWN(promote)
{
	ctx_teardown(&self->c);
}

/* The flag on the first primary removes its whole subnet, nothing else. */
TEST_F(promote, flag_del_first_primary)
{
	static const char * const exp[NSUBNETS] = { "----", "PS", "P" };
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.1.0.1", 24, IFA_F_FLUSH));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, exp);
	expect_events(_metadata, &s, AF_INET, a_all, NULL);
}

/* Same for B: its primary is mid-list, its secondary is the last address. */
TEST_F(promote, flag_del_later_primary)
{
	static const char * const exp[NSUBNETS] = { "PSSS", "--", "P" };
	static const char * const del[] = {
		"10.2.0.1/24", "10.2.0.2/24", NULL
	};
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.2.0.1", 24, IFA_F_FLUSH));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, exp);
	expect_events(_metadata, &s, AF_INET, del, NULL);
}

/*
 * Without the flag, 10.1.0.2 is promoted (one RTM_NEWADDR, the routes of
 * the subnet come back with it as prefsrc) if promote_secondaries is set,
 * else the subnet goes as with the flag.
 */
TEST_F(promote, del_primary)
{
	static const char * const promoted[NSUBNETS] = { "-PSS", "PS", "P" };
	static const char * const flushed[NSUBNETS] = { "----", "PS", "P" };
	static const char * const del[] = { "10.1.0.1/24", NULL };
	static const char * const new[] = { "10.1.0.2/24", NULL };
	struct snap s;

	ASSERT_EQ(0, del4(&self->c, "10.1.0.1", 24, 0));
	snap_take(_metadata, &self->c, &s, AF_INET);
	if (variant->promote) {
		expect_layout(_metadata, &s, promoted);
		expect_events(_metadata, &s, AF_INET, del, new);
	} else {
		expect_layout(_metadata, &s, flushed);
		expect_events(_metadata, &s, AF_INET, a_all, NULL);
	}
}

/* The flag on a secondary deletes only that secondary. */
TEST_F(promote, flag_del_secondary)
{
	static const char * const exp[NSUBNETS] = { "PS-S", "PS", "P" };
	static const char * const del[] = { "10.1.0.3/24", NULL };
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.1.0.3", 24, IFA_F_FLUSH));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, exp);
	expect_events(_metadata, &s, AF_INET, del, NULL);
}

/* C covers A's addresses with another mask: A is not C's secondaries. */
TEST_F(promote, flag_del_other_mask)
{
	static const char * const exp[NSUBNETS] = { "PSSS", "PS", "-" };
	static const char * const del[] = { "10.1.7.1/16", NULL };
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.1.7.1", 16, IFA_F_FLUSH));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, exp);
	expect_events(_metadata, &s, AF_INET, del, NULL);
}

/* The flag acts on its request only: a later plain delete promotes. */
TEST_F(promote, flag_is_per_request)
{
	static const char * const promoted[NSUBNETS] = { "-PSS", "PS", "P" };
	static const char * const flushed[NSUBNETS] = { "----", "PS", "P" };
	static const char * const del[] = { "10.1.0.1/24", NULL };
	static const char * const new[] = { "10.1.0.2/24", NULL };
	unsigned int j;
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.1.0.1", 24, IFA_F_FLUSH));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, flushed);
	for (j = 0; j < 4; j++)
		ASSERT_EQ(0, addr_add(&self->c, AF_INET, layout[0].addrs[j],
				      24, 0));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	EXPECT_EQ(4, ev_total(&s, RTM_NEWADDR, AF_INET));

	ASSERT_EQ(0, del4(&self->c, "10.1.0.1", 24, 0));
	snap_take(_metadata, &self->c, &s, AF_INET);
	if (variant->promote) {
		expect_layout(_metadata, &s, promoted);
		expect_events(_metadata, &s, AF_INET, del, new);
	} else {
		expect_layout(_metadata, &s, flushed);
		expect_events(_metadata, &s, AF_INET, a_all, NULL);
	}
}

FIXTURE(ifa)
{
	struct ctx c;
};

FIXTURE_SETUP(ifa)
{
	ctx_setup(_metadata, &self->c, 1);
}

FIXTURE_TEARDOWN(ifa)
{
	ctx_teardown(&self->c);
}

/* RTM_NEWADDR with the flag: EINVAL with a message, nothing added. */
TEST_F(ifa, newaddr_flag_einval)
{
	char msg[256];
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	err = addr_req(&self->c, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
		       AF_INET, "10.3.0.1", 24, IFA_F_FLUSH, msg, sizeof(msg));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_STREQ(FLAG_MSG, msg);
	snap_take(_metadata, &self->c, &s, AF_INET);
	EXPECT_EQ('-', addr_state(&s, AF_INET, "10.3.0.1", 24,
				  self->c.ifindex));
	expect_route(_metadata, &s, RT_TABLE_LOCAL, RTN_LOCAL, "10.3.0.1",
		     32, NULL);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/* Nor can the flag be set on an existing address. */
TEST_F(ifa, newaddr_replace_flag_einval)
{
	char msg[256];
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	err = addr_req(&self->c, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE,
		       AF_INET, "10.1.0.2", 24, IFA_F_FLUSH, msg, sizeof(msg));
	EXPECT_EQ(-EINVAL, err);
	EXPECT_STREQ(FLAG_MSG, msg);
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/* An address that is not there, in a subnet that is: nothing changes. */
TEST_F(ifa, unknown_addr_flag)
{
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	err = addr_req(&self->c, RTM_DELADDR, 0, AF_INET, "10.1.0.9", 24,
		       IFA_F_FLUSH, NULL, 0);
	EXPECT_EQ(-EADDRNOTAVAIL, err);
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/* IPv6 has no promotion and ignores the flag: one address goes. */
TEST_F(ifa, ipv6_flag_del)
{
	static const char * const v6[] = {
		"2001:db8:1::1", "2001:db8:1::2", "2001:db8:1::3",
		"2001:db8:2::1",
	};
	static const char * const del[] = { "2001:db8:1::1/64", NULL };
	unsigned int i;
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	for (i = 0; i < ARRAY_SIZE(v6); i++) {
		err = addr_add(&self->c, AF_INET6, v6[i], 64, IFA_F_NODAD);
		if (err == -EAFNOSUPPORT)
			SKIP(return, "no IPv6");
		ASSERT_EQ(0, err);
	}
	snap_take(_metadata, &self->c, &s, AF_INET6);

	ASSERT_EQ(0, addr_req(&self->c, RTM_DELADDR, 0, AF_INET6, v6[0], 64,
			      IFA_F_FLUSH, NULL, 0));
	snap_take(_metadata, &self->c, &s, AF_INET6);
	EXPECT_EQ('-', addr_state(&s, AF_INET6, v6[0], 64, self->c.ifindex));
	for (i = 1; i < ARRAY_SIZE(v6); i++) {
		EXPECT_EQ('P', addr_state(&s, AF_INET6, v6[i], 64,
					  self->c.ifindex))
			TH_LOG("%s/64 gone", v6[i]);
	}
	/*
	 * IPv6 announces new addresses from its DAD work item, even with
	 * IFA_F_NODAD, so RTM_NEWADDR for the addresses added above may come
	 * at any time: only the deletions are deterministic.
	 */
	expect_ev_type(_metadata, &s, RTM_DELADDR, AF_INET6, del);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);

	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
}

TEST_HARNESS_MAIN

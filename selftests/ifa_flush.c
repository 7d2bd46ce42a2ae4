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
 * the local, broadcast and prefix routes of each subnet.  Requests, dumps
 * and notifications go through the YNL C library (rt-addr, rt-route,
 * rt-link).
 *
 * A kernel without IFA_F_FLUSH stores the bit on RTM_NEWADDR instead of
 * rejecting it: the tests of the flag SKIP there (probed on RTM_NEWADDR,
 * not on the delete path they test).
 *
 * RTM_DELADDR with NLM_F_BULK deletes every IPv4 address of the device
 * (promoting none), and rejects with an extack message what it does not
 * support: any attribute, other header fields, no device.
 *
 * With ifa_family AF_INET6 it deletes every IPv6 address of the device:
 * global /128s and /64s, link-local ones (the kernel's own too), tentative
 * ones (a veth whose DAD does not end during the test) and temporary ones
 * (made by an IFA_F_MANAGETEMPADDR address with use_tempaddr 2), each with
 * exactly one RTM_DELADDR notification, and their local and prefix
 * routes; the IPv6 addresses and routes of the other devices (a second
 * dummy device holding one of the same addresses and another of the same
 * /64s) and the device's IPv4 addresses stay.  It refuses an attribute,
 * other header fields, no device and an unknown device.
 *
 * A kernel that says "Bulk delete is not supported" (for IPv4, or for
 * IPv6) SKIPs those tests, but for bulk_ipv6_keeps_ipv4: the refused
 * request must have changed nothing.
 *
 * Expected runtime: about 2 s under QEMU/TCG.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

#include <ynl.h>
#include "rt-addr-user.h"
#include "rt-link-user.h"
#include "rt-route-user.h"

#include "ifa_flush.h"
#include "kselftest_harness.h"

#define DEV		"ifaf0"
#define MAX_ENTRIES	128

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

/* An IPv6 route with a device. */
struct rt6_ent {
	int table;
	int type;
	int ifindex;
	int dst_len;
	unsigned char dst[16];
};

struct rt6_list {
	struct rt6_ent e[MAX_ENTRIES];
	int n;
	int overflow;
};

/*
 * Addresses, notifications since the last snapshot and routes; with
 * snap6_take(), also every IPv6 address and route of the netns.
 */
struct snap {
	struct ifa_list addrs;
	struct ifa_list ev;
	struct rt_list rts;
	struct ifa_list addrs6;
	struct rt6_list rts6;
};

struct ctx {
	struct ynl_sock *addr;	/* address requests and dumps */
	struct ynl_sock *mon;	/* address notifications */
	struct ynl_sock *route;	/* route dumps */
	int ifindex;
	int flag_known;	/* RTM_NEWADDR rejects IFA_F_FLUSH */
};

/* The kernel's extack message for RTM_NEWADDR with the flag. */
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

static void ifa_list_add(struct ifa_list *l, int type,
			 const struct rt_addr_getaddr_rsp *a)
{
	struct ifa_ent *e;

	if (l->n == MAX_ENTRIES) {
		l->overflow = 1;
		return;
	}
	e = &l->e[l->n++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->family = a->_hdr.ifa_family;
	e->ifindex = a->_hdr.ifa_index;
	e->prefixlen = a->_hdr.ifa_prefixlen;
	e->flags = a->_present.flags ? a->flags : a->_hdr.ifa_flags;
	if (a->_len.local)
		memcpy(e->addr, a->local, a->_len.local < sizeof(e->addr) ?
		       a->_len.local : sizeof(e->addr));
	else if (a->_len.address)
		memcpy(e->addr, a->address,
		       a->_len.address < sizeof(e->addr) ?
		       a->_len.address : sizeof(e->addr));
}

/* The addresses of @family on @ifindex (0: every device); 0 or -1. */
static int addr_dump_dev(struct ctx *c, int family, int ifindex,
			 struct ifa_list *l)
{
	struct rt_addr_getaddr_req req = { ._hdr.ifa_family = family };
	struct rt_addr_getaddr_list *d;

	d = rt_addr_getaddr_dump(c->addr, &req);
	if (!d)
		return -1;
	ynl_dump_foreach(d, a)
		if (!ifindex || (int)a->_hdr.ifa_index == ifindex)
			ifa_list_add(l, RTM_NEWADDR, a);
	rt_addr_getaddr_list_free(d);
	return 0;
}

/* The device's addresses of @family; 0 or -1. */
static int addr_dump(struct ctx *c, int family, struct ifa_list *l)
{
	return addr_dump_dev(c, family, c->ifindex, l);
}

/* The device's IPv4 routes, in all tables; 0 or -1. */
static int route_dump(struct ctx *c, struct rt_list *l)
{
	struct rt_route_getroute_req_dump req = { ._hdr.rtm_family = AF_INET };
	struct rt_route_getroute_list *d;

	d = rt_route_getroute_dump(c->route, &req);
	if (!d)
		return -1;
	ynl_dump_foreach(d, r) {
		struct rt_ent *e;

		if (!r->_present.oif || (int)r->oif != l->ifindex)
			continue;
		if (l->n == MAX_ENTRIES) {
			l->overflow = 1;
			break;
		}
		e = &l->e[l->n++];
		memset(e, 0, sizeof(*e));
		e->table = r->_present.table ? r->table : r->_hdr.rtm_table;
		e->type = r->_hdr.rtm_type;
		e->dst_len = r->_hdr.rtm_dst_len;
		if (r->_len.dst == 4)
			memcpy(&e->dst, r->dst, 4);
		if (r->_len.prefsrc == 4)
			memcpy(&e->prefsrc, r->prefsrc, 4);
	}
	rt_route_getroute_list_free(d);
	return 0;
}

/* Every IPv6 route of the netns that has a device, in all tables; 0, -1. */
static int route6_dump(struct ctx *c, struct rt6_list *l)
{
	struct rt_route_getroute_req_dump req = {
		._hdr.rtm_family = AF_INET6,
	};
	struct rt_route_getroute_list *d;

	d = rt_route_getroute_dump(c->route, &req);
	if (!d)
		return -1;
	ynl_dump_foreach(d, r) {
		struct rt6_ent *e;

		if (!r->_present.oif)
			continue;
		if (l->n == MAX_ENTRIES) {
			l->overflow = 1;
			break;
		}
		e = &l->e[l->n++];
		memset(e, 0, sizeof(*e));
		e->table = r->_present.table ? r->table : r->_hdr.rtm_table;
		e->type = r->_hdr.rtm_type;
		e->ifindex = r->oif;
		e->dst_len = r->_hdr.rtm_dst_len;
		if (r->_len.dst == 16)
			memcpy(e->dst, r->dst, 16);
	}
	rt_route_getroute_list_free(d);
	return 0;
}

/* Take the pending address notifications; 0 or -1 (e.g. some lost). */
static int mon_read(struct ctx *c, struct ifa_list *l)
{
	struct ynl_ntf_base_type *ntf;

	if (ynl_ntf_check(c->mon) < 0)
		return -1;
	while ((ntf = ynl_ntf_dequeue(c->mon))) {
		struct rt_addr_getaddr_ntf *n = (void *)ntf;

		if (n->cmd == RTM_NEWADDR || n->cmd == RTM_DELADDR)
			ifa_list_add(l, n->cmd, &n->obj);
		ynl_ntf_free(ntf);
	}
	return 0;
}

static int link_create(struct ynl_sock *ys, const char *name,
		       const char *kind)
{
	struct rt_link_newlink_req *req;
	int ret;

	req = rt_link_newlink_req_alloc();
	if (!req)
		return -ENOMEM;
	rt_link_newlink_req_set_nlflags(req, NLM_F_CREATE | NLM_F_EXCL);
	rt_link_newlink_req_set_ifname(req, name);
	rt_link_newlink_req_set_linkinfo_kind(req, kind);
	ret = rt_link_newlink(ys, req);
	rt_link_newlink_req_free(req);
	return ret ? -(int)(ys->err.code ?: EIO) : 0;
}

/* Set @flags (and clear nothing else) and, if not 0, @mtu on a link. */
static int link_set(struct ynl_sock *ys, int ifindex, unsigned int flags,
		    __u32 mtu)
{
	struct rt_link_newlink_req *req;
	int ret;

	req = rt_link_newlink_req_alloc();
	if (!req)
		return -ENOMEM;
	req->_hdr.ifi_index = ifindex;
	req->_hdr.ifi_flags = flags;
	req->_hdr.ifi_change = flags;
	if (mtu)
		rt_link_newlink_req_set_mtu(req, mtu);
	ret = rt_link_newlink(ys, req);
	rt_link_newlink_req_free(req);
	return ret ? -(int)(ys->err.code ?: EIO) : 0;
}

static int addr_add(struct ctx *c, int family, const char *addr, int plen,
		    __u32 flags)
{
	return ifa_req(c->addr, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, family,
		       c->ifindex, addr, NULL, plen, flags);
}

static int del4(struct ctx *c, const char *addr, int plen, __u32 flags)
{
	return ifa_req(c->addr, RTM_DELADDR, 0, AF_INET, c->ifindex, addr, NULL,
		       plen, flags);
}

static void ctx_setup(struct __test_metadata *_metadata, struct ctx *c,
		      int promote)
{
	struct ynl_error yerr;
	struct ynl_sock *link;
	char path[PATH_MAX];
	unsigned int i, j;
	int err;

	if (unshare(CLONE_NEWNET))
		SKIP(return, "unshare(CLONE_NEWNET): %s", strerror(errno));
	/* No IPv6 link-local address: no notification but ours. */
	write_file("/proc/sys/net/ipv6/conf/default/addr_gen_mode", "1");

	link = ynl_sock_create(&ynl_rt_link_family, &yerr);
	ASSERT_TRUE(!!link) TH_LOG("rt-link: %s", yerr.msg);
	err = link_create(link, DEV, "dummy");
	/* a missing dependency: "Unknown device type" */
	if (err == -EOPNOTSUPP) {
		ynl_sock_destroy(link);
		SKIP(return, "no dummy devices (CONFIG_DUMMY)");
	}
	ASSERT_EQ(0, err) TH_LOG("dummy device: %s", link->err.msg);
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
	err = link_set(link, c->ifindex, IFF_UP, 0);
	ASSERT_EQ(0, err) TH_LOG("link up: %s", link->err.msg);
	ynl_sock_destroy(link);

	c->addr = ynl_sock_create(&ynl_rt_addr_family, &yerr);
	ASSERT_TRUE(!!c->addr) TH_LOG("rt-addr: %s", yerr.msg);
	c->route = ynl_sock_create(&ynl_rt_route_family, &yerr);
	ASSERT_TRUE(!!c->route) TH_LOG("rt-route: %s", yerr.msg);

	for (i = 0; i < NSUBNETS; i++)
		for (j = 0; j < ARRAY_SIZE(layout[i].addrs); j++) {
			if (!layout[i].addrs[j])
				continue;
			ASSERT_EQ(0, addr_add(c, AF_INET, layout[i].addrs[j],
					      layout[i].plen, 0));
		}

	c->flag_known = ifa_flag_known(c->addr, c->ifindex, "10.3.0.1");
	ASSERT_LE(0, c->flag_known) TH_LOG("probe: %s", c->addr->err.msg);

	c->mon = ynl_sock_create(&ynl_rt_addr_family, &yerr);
	ASSERT_TRUE(!!c->mon) TH_LOG("rt-addr: %s", yerr.msg);
	ASSERT_EQ(0, ifa_join(c->mon, RTNLGRP_IPV4_IFADDR));
	ASSERT_EQ(0, ifa_join(c->mon, RTNLGRP_IPV6_IFADDR));
}

static void ctx_teardown(struct ctx *c)
{
	if (c->mon)
		ynl_sock_destroy(c->mon);
	if (c->route)
		ynl_sock_destroy(c->route);
	if (c->addr)
		ynl_sock_destroy(c->addr);
}

/*
 * The addresses of the device (of @family) and its IPv4 routes, and the
 * address notifications received since the last snapshot.  IFA_F_FLUSH is
 * never reported.
 */
static void snap_take(struct __test_metadata *_metadata, struct ctx *c,
		      struct snap *s, int family)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->rts.ifindex = c->ifindex;
	ASSERT_EQ(0, mon_read(c, &s->ev))
		TH_LOG("notifications: %s", strerror(errno));
	ASSERT_EQ(0, addr_dump(c, family, &s->addrs))
		TH_LOG("%s", c->addr->err.msg);
	ASSERT_EQ(0, route_dump(c, &s->rts)) TH_LOG("%s", c->route->err.msg);
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

/*
 * Delete @addr/@plen with @flags, then check the addresses and routes
 * against @exp and the notifications against @del and @add (see
 * expect_layout() and expect_events()).
 */
static void del_expect(struct __test_metadata *_metadata, struct ctx *c,
		       const char *addr, int plen, __u32 flags,
		       const char * const *exp, const char * const *del,
		       const char * const *add)
{
	struct snap s;

	ASSERT_EQ(0, del4(c, addr, plen, flags));
	snap_take(_metadata, c, &s, AF_INET);
	expect_layout(_metadata, &s, exp);
	expect_events(_metadata, &s, AF_INET, del, add);
}

/*
 * A plain delete of A's primary: 10.1.0.2 is promoted (one RTM_NEWADDR,
 * the routes of the subnet come back with it as prefsrc) if
 * promote_secondaries is set, else the subnet goes as with the flag.
 */
static void plain_del_a(struct __test_metadata *_metadata, struct ctx *c,
			int promote)
{
	static const char * const promoted[NSUBNETS] = { "-PSS", "PS", "P" };
	static const char * const flushed[NSUBNETS] = { "----", "PS", "P" };
	static const char * const del[] = { "10.1.0.1/24", NULL };
	static const char * const new[] = { "10.1.0.2/24", NULL };

	if (promote)
		del_expect(_metadata, c, "10.1.0.1", 24, 0, promoted, del, new);
	else
		del_expect(_metadata, c, "10.1.0.1", 24, 0, flushed, a_all,
			   NULL);
}

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

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);
	del_expect(_metadata, &self->c, "10.1.0.1", 24, IFA_F_FLUSH, exp,
		   a_all, NULL);
}

/* Same for B: its primary is mid-list, its secondary is the last address. */
TEST_F(promote, flag_del_later_primary)
{
	static const char * const exp[NSUBNETS] = { "PSSS", "--", "P" };
	static const char * const del[] = {
		"10.2.0.1/24", "10.2.0.2/24", NULL
	};

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);
	del_expect(_metadata, &self->c, "10.2.0.1", 24, IFA_F_FLUSH, exp, del,
		   NULL);
}

/* Without the flag, promote_secondaries decides. */
TEST_F(promote, del_primary)
{
	plain_del_a(_metadata, &self->c, variant->promote);
}

/* The flag on a secondary deletes only that secondary. */
TEST_F(promote, flag_del_secondary)
{
	static const char * const exp[NSUBNETS] = { "PS-S", "PS", "P" };
	static const char * const del[] = { "10.1.0.3/24", NULL };

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);
	del_expect(_metadata, &self->c, "10.1.0.3", 24, IFA_F_FLUSH, exp, del,
		   NULL);
}

/* C covers A's addresses with another mask: A is not C's secondaries. */
TEST_F(promote, flag_del_other_mask)
{
	static const char * const exp[NSUBNETS] = { "PSSS", "PS", "-" };
	static const char * const del[] = { "10.1.7.1/16", NULL };

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);
	del_expect(_metadata, &self->c, "10.1.7.1", 16, IFA_F_FLUSH, exp, del,
		   NULL);
}

/* The flag acts on its request only: a later plain delete promotes. */
TEST_F(promote, flag_is_per_request)
{
	static const char * const flushed[NSUBNETS] = { "----", "PS", "P" };
	unsigned int j;
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	del_expect(_metadata, &self->c, "10.1.0.1", 24, IFA_F_FLUSH, flushed,
		   a_all, NULL);
	for (j = 0; j < 4; j++)
		ASSERT_EQ(0, addr_add(&self->c, AF_INET, layout[0].addrs[j],
				      24, 0));
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	EXPECT_EQ(4, ev_total(&s, RTM_NEWADDR, AF_INET));

	plain_del_a(_metadata, &self->c, variant->promote);
}

/*
 * The kernel stops its walk for a primary's secondaries after the last
 * one, by a count it keeps across the subnet's changes: a secondary
 * deleted, one added after the layout, and (with promote_secondaries) the
 * count handed to the promoted address.  The flag then deletes every
 * secondary left, the one added last included.
 */
TEST_F(promote, flag_after_changes)
{
	static const char * const exp[NSUBNETS] = { "----", "PS", "P" };
	static const char * const del_promoted[] = {
		"10.1.0.2/24", "10.1.0.4/24", "10.1.0.5/24", NULL
	};
	static const char * const del_all[] = {
		"10.1.0.1/24", "10.1.0.2/24", "10.1.0.4/24", "10.1.0.5/24",
		NULL
	};
	struct snap s;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	ASSERT_EQ(0, del4(&self->c, "10.1.0.3", 24, 0));
	ASSERT_EQ(0, addr_add(&self->c, AF_INET, "10.1.0.5", 24, 0));
	if (variant->promote)
		ASSERT_EQ(0, del4(&self->c, "10.1.0.1", 24, 0));
	snap_take(_metadata, &self->c, &s, AF_INET);
	EXPECT_EQ('S', addr_state(&s, AF_INET, "10.1.0.5", 24,
				  self->c.ifindex));

	if (variant->promote)
		del_expect(_metadata, &self->c, "10.1.0.2", 24, IFA_F_FLUSH,
			   exp, del_promoted, NULL);
	else
		del_expect(_metadata, &self->c, "10.1.0.1", 24, IFA_F_FLUSH,
			   exp, del_all, NULL);
}

/*
 * The offset, from its netlink header, of the attribute @type of the
 * request @ys sent last, as the kernel counts NLMSGERR_ATTR_OFFS; 0 if the
 * request has none.  YNL keeps that request in ys->nlh until the next one
 * (its own extack decoding walks it there to name the bad attribute).
 */
static unsigned int sent_attr_offs(const struct ynl_sock *ys, int type)
{
	const struct nlmsghdr *nlh = ys->nlh;
	unsigned int off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifaddrmsg));

	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		const struct nlattr *a;

		a = (const void *)((const char *)nlh + off);
		if (a->nla_len < NLA_HDRLEN ||
		    off + a->nla_len > nlh->nlmsg_len)
			return 0;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return off;
		off += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

/*
 * The kernel's extack message, and IFA_FLAGS of the request as the
 * attribute at fault.  YNL hands the message over only inside a text of its
 * own (err.msg), whose wording is YNL's: only the kernel's part is pinned.
 */
static void expect_flag_msg(struct __test_metadata *_metadata, struct ctx *c)
{
	unsigned int offs = sent_attr_offs(c->addr, IFA_FLAGS);

	EXPECT_TRUE(!!strstr(c->addr->err.msg, FLAG_MSG))
		TH_LOG("extack: %s", c->addr->err.msg);
	ASSERT_NE(0u, offs) TH_LOG("no IFA_FLAGS in the request sent");
	EXPECT_EQ(offs, c->addr->err.attr_offs)
		TH_LOG("bad attribute at offset %u, IFA_FLAGS at %u",
		       c->addr->err.attr_offs, offs);
}

FIXTURE(requests)
{
	struct ctx c;
};

FIXTURE_SETUP(requests)
{
	ctx_setup(_metadata, &self->c, 1);
}

FIXTURE_TEARDOWN(requests)
{
	ctx_teardown(&self->c);
}

/* RTM_NEWADDR with the flag: EINVAL with a message, nothing added. */
TEST_F(requests, newaddr_flag_einval)
{
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	err = addr_add(&self->c, AF_INET, "10.3.0.1", 24, IFA_F_FLUSH);
	EXPECT_EQ(-EINVAL, err);
	expect_flag_msg(_metadata, &self->c);
	snap_take(_metadata, &self->c, &s, AF_INET);
	EXPECT_EQ('-', addr_state(&s, AF_INET, "10.3.0.1", 24,
				  self->c.ifindex));
	expect_route(_metadata, &s, RT_TABLE_LOCAL, RTN_LOCAL, "10.3.0.1",
		     32, NULL);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/* Nor can the flag be set on an existing address. */
TEST_F(requests, newaddr_replace_flag_einval)
{
	struct snap s;
	int err;

	if (!self->c.flag_known)
		SKIP(return, NO_FLAG);

	err = ifa_req(self->c.addr, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE,
		      AF_INET, self->c.ifindex, "10.1.0.2", NULL, 24,
		      IFA_F_FLUSH);
	EXPECT_EQ(-EINVAL, err);
	expect_flag_msg(_metadata, &self->c);
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/*
 * An address that is not there, in a subnet that is: nothing changes (a
 * kernel without the flag ignores it: the same).
 */
TEST_F(requests, unknown_addr_flag)
{
	struct snap s;
	int err;

	err = del4(&self->c, "10.1.0.9", 24, IFA_F_FLUSH);
	EXPECT_EQ(-EADDRNOTAVAIL, err);
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/*
 * IPv6 has no promotion and ignores the flag: one address goes (on any
 * kernel).
 */
TEST_F(requests, ipv6_flag_del)
{
	static const char * const v6[] = {
		"2001:db8:1::1", "2001:db8:1::2", "2001:db8:1::3",
		"2001:db8:2::1",
	};
	static const char * const del[] = { "2001:db8:1::1/64", NULL };
	unsigned int i;
	struct snap s;
	int err;

	for (i = 0; i < ARRAY_SIZE(v6); i++) {
		err = addr_add(&self->c, AF_INET6, v6[i], 64, IFA_F_NODAD);
		/* no IPv6 (CONFIG_IPV6=n, ipv6.disable=1): no handler */
		if (err == -EOPNOTSUPP || err == -EAFNOSUPPORT)
			SKIP(return, "no IPv6");
		ASSERT_EQ(0, err);
	}
	snap_take(_metadata, &self->c, &s, AF_INET6);

	ASSERT_EQ(0, ifa_req(self->c.addr, RTM_DELADDR, 0, AF_INET6,
			     self->c.ifindex, v6[0], NULL, 64, IFA_F_FLUSH));
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

/* The extack message of a bulk delete's kernel without support for it. */
#define BULK_NOTSUPP	"Bulk delete is not supported"

static int bulk_req(struct ctx *c, int family, int ifindex, int plen,
		    const char *local)
{
	struct ifaddrmsg ifm = {
		.ifa_family = family,
		.ifa_prefixlen = plen,
		.ifa_index = ifindex,
	};

	return ifa_bulk_del(c->addr, &ifm, local);
}

/* The kernel refused a bulk delete because it has none (for the family). */
static bool bulk_unsupported(const struct ctx *c, int err)
{
	return err == -EOPNOTSUPP && strstr(c->addr->err.msg, BULK_NOTSUPP);
}

#define NO_BULK		"kernel without bulk RTM_DELADDR"

/*
 * A bulk delete that the kernel must refuse with -EINVAL and @msg (and
 * IFA_LOCAL, if given, named as the attribute at fault), and that leaves
 * everything as it was.
 */
static void bulk_einval(struct __test_metadata *_metadata, struct ctx *c,
			int ifindex, int plen, const char *local,
			const char *msg)
{
	struct snap s;
	int err;

	err = bulk_req(c, AF_INET, ifindex, plen, local);
	if (err == -EOPNOTSUPP && strstr(c->addr->err.msg, BULK_NOTSUPP))
		SKIP(return, "kernel without bulk RTM_DELADDR");
	EXPECT_EQ(-EINVAL, err);
	EXPECT_TRUE(!!strstr(c->addr->err.msg, msg))
		TH_LOG("extack: %s", c->addr->err.msg);
	if (local) {
		/* before the next request replaces the one sent */
		unsigned int offs = sent_attr_offs(c->addr, IFA_LOCAL);

		ASSERT_NE(0u, offs) TH_LOG("no IFA_LOCAL in the request sent");
		EXPECT_EQ(offs, c->addr->err.attr_offs)
			TH_LOG("bad attribute at offset %u, IFA_LOCAL at %u",
			       c->addr->err.attr_offs, offs);
	}
	snap_take(_metadata, c, &s, AF_INET);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/*
 * One bulk RTM_DELADDR empties the device: each address gets its
 * RTM_DELADDR notification, none is promoted (no RTM_NEWADDR), no route
 * of the device is left.
 */
TEST_F(requests, bulk_all)
{
	static const char * const gone[NSUBNETS] = { "----", "--", "-" };
	static const char * const del[] = {
		"10.1.0.1/24", "10.1.0.2/24", "10.1.0.3/24", "10.1.0.4/24",
		"10.2.0.1/24", "10.2.0.2/24", "10.1.7.1/16", NULL
	};
	struct snap s;
	int err;

	err = bulk_req(&self->c, AF_INET, self->c.ifindex, 0, NULL);
	if (err == -EOPNOTSUPP && strstr(self->c.addr->err.msg, BULK_NOTSUPP))
		SKIP(return, "kernel without bulk RTM_DELADDR");
	ASSERT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	snap_take(_metadata, &self->c, &s, AF_INET);
	expect_layout(_metadata, &s, gone);
	EXPECT_EQ(0, s.rts.n) TH_LOG("%d routes of the device left", s.rts.n);
	expect_events(_metadata, &s, AF_INET, del, NULL);
}

/*
 * No filter is defined: an attribute is refused (strict parsing, a policy
 * without any), and named as the fault.
 */
TEST_F(requests, bulk_attr_einval)
{
	bulk_einval(_metadata, &self->c, self->c.ifindex, 0, "10.1.0.1",
		    "Unsupported attribute");
}

TEST_F(requests, bulk_header_einval)
{
	bulk_einval(_metadata, &self->c, self->c.ifindex, 24, NULL,
		    "ipv4: Bulk delete uses ifa_index only");
}

TEST_F(requests, bulk_no_dev_einval)
{
	bulk_einval(_metadata, &self->c, 0, 0, NULL,
		    "ipv4: Bulk delete needs a device");
}

/*
 * An MTU below 68 takes the device's IPv4 configuration away, and its
 * addresses with it: a bulk delete then finds nothing to delete, which is
 * not an error (as for a flush that finds nothing).
 */
TEST_F(requests, bulk_no_ipv4_config)
{
	struct ynl_error yerr;
	struct ynl_sock *link;
	struct snap s;
	int err;

	link = ynl_sock_create(&ynl_rt_link_family, &yerr);
	ASSERT_TRUE(!!link) TH_LOG("rt-link: %s", yerr.msg);
	err = link_set(link, self->c.ifindex, 0, 67);
	ynl_sock_destroy(link);
	ASSERT_EQ(0, err) TH_LOG("MTU 67: %s", strerror(-err));
	/* the notifications of the MTU change */
	snap_take(_metadata, &self->c, &s, AF_INET);
	ASSERT_EQ(0, s.addrs.n) TH_LOG("%d addresses left", s.addrs.n);

	err = bulk_req(&self->c, AF_INET, self->c.ifindex, 0, NULL);
	if (err == -EOPNOTSUPP && strstr(self->c.addr->err.msg, BULK_NOTSUPP))
		SKIP(return, "kernel without bulk RTM_DELADDR");
	EXPECT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	snap_take(_metadata, &self->c, &s, AF_INET);
	EXPECT_EQ(0, s.ev.n) TH_LOG("%d notifications", s.ev.n);
}

/*
 * IPv6.  DEV gets, next to its IPv4 layout, layout6: global /128s, /64s
 * (three in one, others alone), an address without a prefix route and a
 * link-local address added by hand; with addr_gen_mode 0, the kernel adds
 * its own link-local address (from the MAC address) as the sysctl is
 * written.  DEV1, another dummy device with its own link-local address,
 * holds one of DEV's addresses, another address of one of its /64s and a
 * /128: they must survive DEV's bulk delete, routes included.
 */
#define DEV1		"ifaf1"
#define VETH		"ifav0"

struct addr6 {
	const char *addr;
	int plen;
	__u32 flags;
};

static const struct addr6 layout6[] = {
	{ "2001:db8:1::1", 128, 0 },
	{ "2001:db8:1::2", 128, 0 },
	{ "2001:db8:2::1", 64, 0 },
	{ "2001:db8:2::2", 64, 0 },
	{ "2001:db8:2::3", 64, 0 },
	{ "2001:db8:3::1", 64, 0 },
	{ "2001:db8:4::1", 64, 0 },
	{ "2001:db8:5::1", 64, IFA_F_NOPREFIXROUTE },
	{ "fe80::1:1", 64, 0 },
};

static const struct addr6 layout6_dev1[] = {
	{ "2001:db8:2::1", 64, 0 },
	{ "2001:db8:2::9", 64, 0 },
	{ "2001:db8:6::1", 128, 0 },
};

/* /proc/sys/net/ipv6/@dir/@dev/@key = @val (@dir: conf or neigh) */
static int sysctl6(const char *dir, const char *dev, const char *key,
		   const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/%s/%s/%s", dir, dev,
		 key);
	return write_file(path, val);
}

static void add6(struct __test_metadata *_metadata, struct ctx *c,
		 int ifindex, const struct addr6 *l, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = ifa_req(c->addr, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
			      AF_INET6, ifindex, l[i].addr, NULL, l[i].plen,
			      l[i].flags);
		ASSERT_EQ(0, err)
			TH_LOG("%s/%d: %s", l[i].addr, l[i].plen,
			       c->addr->err.msg);
	}
}

/*
 * A new device @name of @kind, up unless @down: its ifindex, or 0 if the
 * kernel does not know @kind.
 */
static int link_add(struct __test_metadata *_metadata, const char *name,
		    const char *kind, bool down)
{
	struct ynl_error yerr;
	struct ynl_sock *link;
	int ifindex, err;

	link = ynl_sock_create(&ynl_rt_link_family, &yerr);
	ASSERT_TRUE(!!link) TH_LOG("rt-link: %s", yerr.msg);
	err = link_create(link, name, kind);
	if (err == -EOPNOTSUPP) {
		ynl_sock_destroy(link);
		return 0;
	}
	ASSERT_EQ(0, err) TH_LOG("%s %s: %s", kind, name, link->err.msg);
	ifindex = if_nametoindex(name);
	ASSERT_LT(0, ifindex);
	if (!down) {
		err = link_set(link, ifindex, IFF_UP, 0);
		ASSERT_EQ(0, err) TH_LOG("%s up: %s", name, link->err.msg);
	}
	ynl_sock_destroy(link);
	return ifindex;
}

/*
 * layout6 on DEV, with the kernel's link-local address, and DEV1 with
 * layout6_dev1 and its own.  The ifindex of DEV1, or 0 if the kernel has
 * no IPv6 (CONFIG_IPV6=n, ipv6.disable=1: no /proc/sys/net/ipv6).
 */
static int v6_setup(struct __test_metadata *_metadata, struct ctx *c)
{
	int dev1, err;

	err = sysctl6("conf", DEV, "addr_gen_mode", "0");
	if (err == -ENOENT)
		return 0;
	ASSERT_EQ(0, err) TH_LOG("addr_gen_mode: %s", strerror(-err));
	dev1 = link_add(_metadata, DEV1, "dummy", false);
	ASSERT_LT(0, dev1);
	ASSERT_EQ(0, sysctl6("conf", DEV1, "addr_gen_mode", "0"));
	add6(_metadata, c, c->ifindex, layout6, ARRAY_SIZE(layout6));
	add6(_metadata, c, dev1, layout6_dev1, ARRAY_SIZE(layout6_dev1));
	return dev1;
}

/*
 * Wait until no IPv6 address of the netns is tentative.  On a dummy
 * device DAD ends at once, but in a work item, which then announces the
 * address (RTM_NEWADDR) and adds its local route: the dump is taken again
 * after each notification, not after a delay (the harness's timeout ends
 * a test that would wait for ever).  The work item sends the notification
 * before it adds the route, under RTNL: a request that takes RTNL (an
 * IPv6 delete of an address that is nowhere) returns after the last one.
 */
static void settle6(struct __test_metadata *_metadata, struct ctx *c)
{
	struct pollfd pfd = {
		.fd = ynl_socket_get_fd(c->mon),
		.events = POLLIN,
	};
	struct ifa_list l, ev;
	int i, err;

	for (;;) {
		memset(&l, 0, sizeof(l));
		ASSERT_EQ(0, addr_dump_dev(c, AF_INET6, 0, &l))
			TH_LOG("%s", c->addr->err.msg);
		ASSERT_EQ(0, l.overflow);
		for (i = 0; i < l.n; i++)
			if (l.e[i].flags & IFA_F_TENTATIVE)
				break;
		if (i == l.n)
			break;
		ASSERT_EQ(1, poll(&pfd, 1, -1));
		/* these notifications are not the test's: dropped */
		memset(&ev, 0, sizeof(ev));
		ASSERT_EQ(0, mon_read(c, &ev));
	}
	err = ifa_req(c->addr, RTM_DELADDR, 0, AF_INET6, c->ifindex,
		      "2001:db8:ffff::1", NULL, 128, 0);
	ASSERT_EQ(-EADDRNOTAVAIL, err);
}

/* snap_take() for IPv4, and every IPv6 address and route of the netns. */
static void snap6_take(struct __test_metadata *_metadata, struct ctx *c,
		       struct snap *s)
{
	snap_take(_metadata, c, s, AF_INET);
	ASSERT_EQ(0, addr_dump_dev(c, AF_INET6, 0, &s->addrs6))
		TH_LOG("%s", c->addr->err.msg);
	ASSERT_EQ(0, route6_dump(c, &s->rts6))
		TH_LOG("%s", c->route->err.msg);
	ASSERT_EQ(0, s->addrs6.overflow);
	ASSERT_EQ(0, s->rts6.overflow);
}

/* Entries of @l of @type with @e's family, device, address and length. */
static int ent_count(const struct ifa_list *l, int type,
		     const struct ifa_ent *e)
{
	int i, n = 0;

	for (i = 0; i < l->n; i++) {
		const struct ifa_ent *x = &l->e[i];

		n += x->type == type && x->family == e->family &&
		     x->ifindex == e->ifindex &&
		     x->prefixlen == e->prefixlen &&
		     !memcmp(x->addr, e->addr, sizeof(x->addr));
	}
	return n;
}

/* IPv6 addresses of @l on @ifindex; with @flag set (0: all). */
static int addr6_count(const struct ifa_list *l, int ifindex, __u32 flag)
{
	int i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->e[i].family == AF_INET6 &&
		     l->e[i].ifindex == ifindex &&
		     (!flag || (l->e[i].flags & flag));
	return n;
}

/* @addr/@plen of @ifindex in @l: how many times. */
static int addr6_find(const struct ifa_list *l, int ifindex,
		      const char *addr, int plen)
{
	struct ifa_ent e = {
		.family = AF_INET6,
		.ifindex = ifindex,
		.prefixlen = plen,
	};

	if (inet_pton(AF_INET6, addr, e.addr) != 1)
		return -1;
	return ent_count(l, RTM_NEWADDR, &e);
}

/* Routes of @l with @r's table, type, device and destination. */
static int rt6_count(const struct rt6_list *l, const struct rt6_ent *r)
{
	int i, n = 0;

	for (i = 0; i < l->n; i++) {
		const struct rt6_ent *x = &l->e[i];

		n += x->table == r->table && x->type == r->type &&
		     x->ifindex == r->ifindex && x->dst_len == r->dst_len &&
		     !memcmp(x->dst, r->dst, sizeof(x->dst));
	}
	return n;
}

/*
 * Routes of @type to @addr/@plen's prefix on @ifindex in @s, in any table
 * (without CONFIG_IPV6_MULTIPLE_TABLES, local routes are in main).
 */
static int rt6_find(const struct snap *s, int type, int ifindex,
		    const char *addr, int plen)
{
	unsigned char dst[16];
	int i, n = 0;

	if (inet_pton(AF_INET6, addr, dst) != 1)
		return -1;
	for (i = plen / 8; i < 16; i++)
		dst[i] &= i == plen / 8 ? 0xff << (8 - plen % 8) : 0;
	for (i = 0; i < s->rts6.n; i++) {
		const struct rt6_ent *r = &s->rts6.e[i];

		n += r->type == type && r->ifindex == ifindex &&
		     r->dst_len == plen && !memcmp(r->dst, dst, sizeof(dst));
	}
	return n;
}

/*
 * Every IPv6 address and route of @before that is not on @ifindex is
 * still in @s, and no IPv6 address but @ifindex's had its RTM_DELADDR.
 */
static void expect_kept6(struct __test_metadata *_metadata,
			 const struct snap *before, const struct snap *s,
			 int ifindex)
{
	char buf[INET6_ADDRSTRLEN];
	int i;

	for (i = 0; i < before->addrs6.n; i++) {
		const struct ifa_ent *e = &before->addrs6.e[i];

		if (e->ifindex == ifindex)
			continue;
		inet_ntop(AF_INET6, e->addr, buf, sizeof(buf));
		EXPECT_EQ(1, ent_count(&s->addrs6, RTM_NEWADDR, e))
			TH_LOG("%s/%d of ifindex %d gone", buf, e->prefixlen,
			       e->ifindex);
		EXPECT_EQ(0, ent_count(&s->ev, RTM_DELADDR, e))
			TH_LOG("RTM_DELADDR %s/%d of ifindex %d", buf,
			       e->prefixlen, e->ifindex);
	}
	for (i = 0; i < before->rts6.n; i++) {
		const struct rt6_ent *r = &before->rts6.e[i];

		if (r->ifindex == ifindex)
			continue;
		inet_ntop(AF_INET6, r->dst, buf, sizeof(buf));
		EXPECT_LE(1, rt6_count(&s->rts6, r))
			TH_LOG("route %s/%d (table %d, type %d) of %d gone",
			       buf, r->dst_len, r->table, r->type, r->ifindex);
	}
}

/*
 * After a bulk delete of the IPv6 addresses of @ifindex, @before taken
 * just before it: each IPv6 address @ifindex had is gone, with exactly
 * one RTM_DELADDR notification, and there was no other IPv6 RTM_DELADDR;
 * no route of @ifindex is left but multicast ones (ff00::/8, which comes
 * with the device's IPv6 configuration, not with an address): no local
 * route, no prefix route.  Every IPv6 address and route of the other
 * devices is still there, and DEV's IPv4 addresses and routes are as set
 * up, without any IPv4 notification.
 */
static void expect_bulk6(struct __test_metadata *_metadata, struct ctx *c,
			 int ifindex, const struct snap *before)
{
	char buf[INET6_ADDRSTRLEN];
	int i, n = 0, got;
	struct snap s;

	snap6_take(_metadata, c, &s);
	for (i = 0; i < before->addrs6.n; i++) {
		const struct ifa_ent *e = &before->addrs6.e[i];

		if (e->ifindex != ifindex)
			continue;
		n++;
		inet_ntop(AF_INET6, e->addr, buf, sizeof(buf));
		got = ent_count(&s.ev, RTM_DELADDR, e);
		EXPECT_EQ(1, got)
			TH_LOG("%s/%d: %d RTM_DELADDR, expected 1", buf,
			       e->prefixlen, got);
	}
	got = ev_total(&s, RTM_DELADDR, AF_INET6);
	EXPECT_EQ(n, got)
		TH_LOG("%d IPv6 RTM_DELADDR for the %d addresses", got, n);
	for (i = 0; i < s.addrs6.n; i++) {
		const struct ifa_ent *e = &s.addrs6.e[i];

		inet_ntop(AF_INET6, e->addr, buf, sizeof(buf));
		EXPECT_NE(ifindex, e->ifindex)
			TH_LOG("%s/%d left", buf, e->prefixlen);
	}
	for (i = 0; i < s.rts6.n; i++) {
		const struct rt6_ent *r = &s.rts6.e[i];

		if (r->ifindex != ifindex)
			continue;
		inet_ntop(AF_INET6, r->dst, buf, sizeof(buf));
		EXPECT_EQ(RTN_MULTICAST, r->type)
			TH_LOG("route %s/%d (table %d, type %d) left", buf,
			       r->dst_len, r->table, r->type);
	}
	expect_kept6(_metadata, before, &s, ifindex);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

static int bulk6_req(struct ctx *c, int ifindex)
{
	struct ifaddrmsg ifm = {
		.ifa_family = AF_INET6,
		.ifa_index = ifindex,
	};

	return ifa_bulk_del(c->addr, &ifm, NULL);
}

/*
 * Global /128s and /64s (several in one /64), an address without prefix
 * route, link-local addresses (the kernel's own and one added by hand):
 * all go, each with its RTM_DELADDR, with their local and prefix routes
 * (fe80::/64 included); DEV1's addresses and routes (the same address, the
 * same /64, its own fe80::/64) and DEV's IPv4 ones stay.
 */
TEST_F(requests, bulk6_all)
{
	struct snap before;
	unsigned int i;
	int dev1, err;

	dev1 = v6_setup(_metadata, &self->c);
	if (!dev1)
		SKIP(return, "no IPv6");
	settle6(_metadata, &self->c);
	snap6_take(_metadata, &self->c, &before);

	/* the layout and the kernel's link-local address, with routes */
	ASSERT_EQ((int)ARRAY_SIZE(layout6) + 1,
		  addr6_count(&before.addrs6, self->c.ifindex, 0));
	for (i = 0; i < ARRAY_SIZE(layout6); i++) {
		const struct addr6 *a = &layout6[i];

		ASSERT_EQ(1, addr6_find(&before.addrs6, self->c.ifindex,
					a->addr, a->plen))
			TH_LOG("%s/%d not set up", a->addr, a->plen);
		ASSERT_EQ(1, rt6_find(&before, RTN_LOCAL, self->c.ifindex,
				      a->addr, 128))
			TH_LOG("%s: no local route", a->addr);
		ASSERT_EQ(a->flags & IFA_F_NOPREFIXROUTE ? 0 : 1,
			  rt6_find(&before, RTN_UNICAST, self->c.ifindex,
				   a->addr, a->plen))
			TH_LOG("%s/%d: prefix route", a->addr, a->plen);
	}
	ASSERT_EQ((int)ARRAY_SIZE(layout6_dev1) + 1,
		  addr6_count(&before.addrs6, dev1, 0));

	err = bulk6_req(&self->c, self->c.ifindex);
	if (bulk_unsupported(&self->c, err))
		SKIP(return, NO_BULK);
	ASSERT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	expect_bulk6(_metadata, &self->c, self->c.ifindex, &before);
}

/*
 * Tentative addresses: on a veth with DAD (one probe, retransmitted after
 * a day), an address stays tentative from its add to the end of the test,
 * whether DAD has started (carrier) or waits for the link: it has its
 * prefix route, no local route yet, and maybe a DAD work item pending.
 * They go with the others (IFA_F_NODAD ones), each with its RTM_DELADDR;
 * DEV and DEV1 keep their addresses.
 */
TEST_F(requests, bulk6_tentative)
{
	static const struct addr6 tent[] = {
		{ "2001:db8:a::1", 64, 0 },
		{ "2001:db8:a::2", 64, 0 },
		{ "2001:db8:b::1", 128, 0 },
		{ "fe80::a:1", 64, 0 },
		{ "2001:db8:c::1", 64, IFA_F_NODAD },
	};
	struct rt_link_getlink_req *req;
	struct rt_link_getlink_rsp *rsp;
	struct ynl_error yerr;
	struct ynl_sock *link;
	int veth, peer, err;
	struct snap before;
	unsigned int i;

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	veth = link_add(_metadata, VETH, "veth", true);
	if (!veth)
		SKIP(return, "no veth devices (CONFIG_VETH)");
	ASSERT_EQ(0, sysctl6("conf", VETH, "accept_dad", "1"));
	ASSERT_EQ(0, sysctl6("conf", VETH, "dad_transmits", "1"));
	ASSERT_EQ(0, sysctl6("neigh", VETH, "retrans_time_ms", "86400000"));

	/* the peer, named by the kernel, up: the veth gets its carrier */
	link = ynl_sock_create(&ynl_rt_link_family, &yerr);
	ASSERT_TRUE(!!link) TH_LOG("rt-link: %s", yerr.msg);
	req = rt_link_getlink_req_alloc();
	ASSERT_TRUE(!!req);
	req->_hdr.ifi_index = veth;
	rsp = rt_link_getlink(link, req);
	rt_link_getlink_req_free(req);
	ASSERT_TRUE(rsp && rsp->_present.link) TH_LOG("%s", link->err.msg);
	peer = rsp->link;
	rt_link_getlink_rsp_free(rsp);
	ASSERT_EQ(0, link_set(link, peer, IFF_UP, 0));
	ASSERT_EQ(0, link_set(link, veth, IFF_UP, 0));
	ynl_sock_destroy(link);

	add6(_metadata, &self->c, veth, tent, ARRAY_SIZE(tent));
	snap6_take(_metadata, &self->c, &before);
	ASSERT_EQ((int)ARRAY_SIZE(tent), addr6_count(&before.addrs6, veth, 0));
	for (i = 0; i < ARRAY_SIZE(tent); i++) {
		const struct addr6 *a = &tent[i];
		const struct ifa_ent *e;
		int n;

		e = ent_find(&before.addrs6, RTM_NEWADDR, AF_INET6, a->addr,
			     a->plen, veth, &n);
		ASSERT_EQ(1, n) TH_LOG("%s/%d not set up", a->addr, a->plen);
		if (a->flags & IFA_F_NODAD)
			continue;
		ASSERT_NE(0u, e->flags & IFA_F_TENTATIVE)
			TH_LOG("%s/%d not tentative", a->addr, a->plen);
		ASSERT_EQ(0, rt6_find(&before, RTN_LOCAL, veth, a->addr,
				      128))
			TH_LOG("%s: a local route", a->addr);
		ASSERT_EQ(1, rt6_find(&before, RTN_UNICAST, veth, a->addr,
				      a->plen))
			TH_LOG("%s/%d: no prefix route", a->addr, a->plen);
	}

	err = bulk6_req(&self->c, veth);
	if (bulk_unsupported(&self->c, err))
		SKIP(return, NO_BULK);
	ASSERT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	expect_bulk6(_metadata, &self->c, veth, &before);
}

/*
 * Temporary addresses: with use_tempaddr 2, adding an address with
 * IFA_F_MANAGETEMPADDR creates a temporary address in its /64 before the
 * add returns (manage_tempaddrs()).  The bulk delete takes them with the
 * others, and none is made again.
 */
TEST_F(requests, bulk6_temporary)
{
	static const struct addr6 mng[] = {
		{ "2001:db8:7::1", 64, IFA_F_MANAGETEMPADDR },
		{ "2001:db8:8::1", 64, IFA_F_MANAGETEMPADDR },
		{ "2001:db8:8::2", 64, 0 },
	};
	static const char * const tmp_pfx[] = {
		"2001:db8:7::", "2001:db8:8::"
	};
	struct snap before;
	unsigned int i;
	int err, j, n;

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	ASSERT_EQ(0, sysctl6("conf", DEV, "use_tempaddr", "2"));
	add6(_metadata, &self->c, self->c.ifindex, mng, ARRAY_SIZE(mng));
	snap6_take(_metadata, &self->c, &before);

	/* one temporary address in each /64 of a mngtmpaddr address */
	for (i = 0; i < ARRAY_SIZE(tmp_pfx); i++) {
		unsigned char p[16];

		ASSERT_EQ(1, inet_pton(AF_INET6, tmp_pfx[i], p));
		for (j = 0, n = 0; j < before.addrs6.n; j++) {
			const struct ifa_ent *e = &before.addrs6.e[j];

			n += e->ifindex == self->c.ifindex &&
			     (e->flags & IFA_F_TEMPORARY) &&
			     e->prefixlen == 64 && !memcmp(e->addr, p, 8);
		}
		ASSERT_EQ(1, n) TH_LOG("%s/64: %d temporary addresses",
				       tmp_pfx[i], n);
	}
	ASSERT_EQ((int)ARRAY_SIZE(tmp_pfx),
		  addr6_count(&before.addrs6, self->c.ifindex,
			      IFA_F_TEMPORARY));

	err = bulk6_req(&self->c, self->c.ifindex);
	if (bulk_unsupported(&self->c, err))
		SKIP(return, NO_BULK);
	ASSERT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	expect_bulk6(_metadata, &self->c, self->c.ifindex, &before);
}

/*
 * An IPv6 bulk delete that the kernel must refuse with @want and @msg (and
 * IFA_LOCAL, if @local, named as the attribute at fault): every address
 * and route stays, without any RTM_DELADDR.
 */
static void bulk6_refused(struct __test_metadata *_metadata, struct ctx *c,
			  const struct ifaddrmsg *ifm, const char *local,
			  int want, const char *msg)
{
	struct snap before, s;
	int err;

	snap6_take(_metadata, c, &before);
	err = ifa_bulk_del(c->addr, ifm, local);
	if (bulk_unsupported(c, err))
		SKIP(return, NO_BULK);
	EXPECT_EQ(want, err);
	EXPECT_TRUE(!!strstr(c->addr->err.msg, msg))
		TH_LOG("extack: %s", c->addr->err.msg);
	if (local) {
		unsigned int offs = sent_attr_offs(c->addr, IFA_LOCAL);

		ASSERT_NE(0u, offs) TH_LOG("no IFA_LOCAL in the request sent");
		EXPECT_EQ(offs, c->addr->err.attr_offs)
			TH_LOG("bad attribute at offset %u, IFA_LOCAL at %u",
			       c->addr->err.attr_offs, offs);
	}
	snap6_take(_metadata, c, &s);
	expect_kept6(_metadata, &before, &s, -1);
	EXPECT_EQ(0, ev_total(&s, RTM_DELADDR, AF_INET6));
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/* No filter is defined for IPv6 either: an attribute is refused. */
TEST_F(requests, bulk6_attr_einval)
{
	struct ifaddrmsg ifm = {
		.ifa_family = AF_INET6,
		.ifa_index = self->c.ifindex,
	};

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	bulk6_refused(_metadata, &self->c, &ifm, "2001:db8:2::1", -EINVAL,
		      "Unsupported attribute");
}

/* Nor a prefix length, flags or a scope in the header. */
TEST_F(requests, bulk6_header_einval)
{
	static const struct {
		__u8 plen, flags, scope;
	} hdr[] = {
		{ .plen = 64 },
		{ .flags = IFA_F_PERMANENT },
		{ .scope = RT_SCOPE_LINK },
	};
	unsigned int i;

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	for (i = 0; i < ARRAY_SIZE(hdr); i++) {
		struct ifaddrmsg ifm = {
			.ifa_family = AF_INET6,
			.ifa_prefixlen = hdr[i].plen,
			.ifa_flags = hdr[i].flags,
			.ifa_scope = hdr[i].scope,
			.ifa_index = self->c.ifindex,
		};

		bulk6_refused(_metadata, &self->c, &ifm, NULL, -EINVAL,
			      "ipv6: Bulk delete uses ifa_index only");
	}
}

TEST_F(requests, bulk6_no_dev_einval)
{
	struct ifaddrmsg ifm = { .ifa_family = AF_INET6 };

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	bulk6_refused(_metadata, &self->c, &ifm, NULL, -EINVAL,
		      "ipv6: Bulk delete needs a device");
}

TEST_F(requests, bulk6_unknown_dev_enodev)
{
	struct ifaddrmsg ifm = { .ifa_family = AF_INET6 };
	int dev1;

	dev1 = v6_setup(_metadata, &self->c);
	if (!dev1)
		SKIP(return, "no IPv6");
	/* the namespace's devices are numbered from 1, DEV1 last */
	ifm.ifa_index = dev1 + 1000;
	bulk6_refused(_metadata, &self->c, &ifm, NULL, -ENODEV,
		      "ipv6: Device not found");
}

/*
 * An MTU below 1280 takes the device's IPv6 configuration away, and its
 * IPv6 addresses with it: a bulk delete then finds nothing to delete,
 * which is not an error (as for IPv4 without an IPv4 configuration).
 */
TEST_F(requests, bulk6_no_ipv6_config)
{
	struct ynl_error yerr;
	struct ynl_sock *link;
	struct snap s;
	int err;

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	link = ynl_sock_create(&ynl_rt_link_family, &yerr);
	ASSERT_TRUE(!!link) TH_LOG("rt-link: %s", yerr.msg);
	err = link_set(link, self->c.ifindex, 0, 1279);
	ynl_sock_destroy(link);
	ASSERT_EQ(0, err) TH_LOG("MTU 1279: %s", strerror(-err));
	/* the notifications of the MTU change */
	snap6_take(_metadata, &self->c, &s);
	ASSERT_EQ(0, addr6_count(&s.addrs6, self->c.ifindex, 0));

	err = bulk6_req(&self->c, self->c.ifindex);
	if (bulk_unsupported(&self->c, err))
		SKIP(return, NO_BULK);
	EXPECT_EQ(0, err) TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	snap6_take(_metadata, &self->c, &s);
	EXPECT_EQ(0, ev_total(&s, RTM_DELADDR, AF_INET6));
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
}

/*
 * An IPv6 bulk delete leaves the IPv4 addresses alone (on any kernel):
 * the IPv6 addresses go, or, on a kernel without it, which refuses the
 * request, all stay.
 */
TEST_F(requests, bulk_ipv6_keeps_ipv4)
{
	bool refused;
	struct snap s;
	int err, n;

	if (!v6_setup(_metadata, &self->c))
		SKIP(return, "no IPv6");
	err = bulk6_req(&self->c, self->c.ifindex);
	/* before the next request replaces the extack message */
	refused = bulk_unsupported(&self->c, err);
	EXPECT_TRUE(refused || !err)
		TH_LOG("bulk delete: %s", self->c.addr->err.msg);
	snap6_take(_metadata, &self->c, &s);
	expect_layout(_metadata, &s, untouched);
	expect_events(_metadata, &s, AF_INET, NULL, NULL);
	n = addr6_count(&s.addrs6, self->c.ifindex, 0);
	if (refused) {
		EXPECT_EQ((int)ARRAY_SIZE(layout6) + 1, n)
			TH_LOG("%d IPv6 addresses after a refused request", n);
	} else {
		EXPECT_EQ(0, n) TH_LOG("%d IPv6 addresses left", n);
	}
}

TEST_HARNESS_MAIN

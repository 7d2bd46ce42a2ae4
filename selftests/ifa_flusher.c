// SPDX-License-Identifier: GPL-2.0
/*
 * ifa_flusher: empty a device (or one subnet of it) of its IPv4 or IPv6
 * addresses through the YNL rt-addr family, for ifa_flush.sh and
 * scripts/check/diff-scenarios.sh.
 *
 *   ifa_flusher [-m dump|secfirst|flag|bulk] [-o ADDR/LEN] [-r] DEV
 *	Dump the IPv4 addresses of DEV (with -o, only those of the subnet
 *	ADDR/LEN: prefix length LEN and IFA_ADDRESS, the peer if there is
 *	one, in ADDR/LEN) and delete them one RTM_DELADDR at a time:
 *	dump:     in dump order (what "ip addr flush" does);
 *	secfirst: secondaries first, then primaries (the userspace-only
 *		  way to avoid promotions);
 *	flag:     in dump order with IFA_F_FLUSH in IFA_FLAGS, so that
 *		  deleting a primary also deletes its secondaries;
 *	bulk:     all of them with one RTM_DELADDR with NLM_F_BULK (no -o).
 *	An address already removed together with its primary
 *	(EADDRNOTAVAIL) is counted as gone.  Prints the numbers of addresses
 *	found, deleted, gone, failed and left; exits 0 only if no request
 *	failed otherwise and a final dump shows none left.  With -r, also
 *	counts the IPv4 route notifications (RTM_NEWROUTE, RTM_DELROUTE) and
 *	the RTM_DELADDR notifications of the network namespace: the kernel
 *	sends those a request causes before its ack, so reading them after
 *	each ack counts them exactly; a lost notification is an error (the
 *	sockets' receive buffers are made large enough for a bulk delete of
 *	thousands of addresses, whose notifications all come before its ack).
 *
 *   ifa_flusher -6 [-m dump|bulk] [-r] DEV
 *	The same for the IPv6 addresses of DEV, link-local, temporary and
 *	tentative ones included:
 *	dump: one RTM_DELADDR per address in dump order, with what the
 *	      dump gave: IFA_ADDRESS (and IFA_LOCAL, for an address with a
 *	      peer), the prefix length and IFA_FLAGS (what "ip -6 address
 *	      flush dev DEV" does);
 *	bulk: one RTM_DELADDR with NLM_F_BULK.
 *	An address already gone (a temporary address deleted with its
 *	mngtmpaddr one: EADDRNOTAVAIL) is counted as gone.  Same report and
 *	exit code; with -r, the counts are of the IPv6 route notifications
 *	and of the IPv6 RTM_DELADDR notifications of the network namespace.
 *	On a kernel without IPv6 bulk delete, -m bulk reports "failed 1"
 *	(and "bulk delete: ... Bulk delete is not supported" on stderr).
 *
 *   ifa_flusher -m select FILE
 *	Flush the IPv4 addresses FILE lists, one "IFINDEX LOCAL ADDRESS
 *	PREFIXLEN" a line (what a selector of "ip address show" picked, on
 *	any device), as "ip address flush" with IFA_F_FLUSH does: a listed
 *	primary whose subnet (its device, prefix length and prefix of
 *	IFA_ADDRESS) has every address listed is deleted with the flag and
 *	its secondaries are not asked for; every other listed address is
 *	deleted plainly, in dump order.  Prints the numbers of addresses
 *	found, listed, flagged (primaries deleted with the flag), deleted,
 *	gone, failed and left (listed ones still there); exits 0 only if no
 *	request failed otherwise and none is left.
 *
 *   ifa_flusher -c
 *	Whether the kernel knows IFA_F_FLUSH, asked in a network namespace
 *	of its own (ifa_flag_known()): exit 0 if it does, 4 (KSFT_SKIP) if
 *	not.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/rtnetlink.h>

#include <ynl.h>
#include "rt-addr-user.h"
#include "rt-route-user.h"

#include "ifa_flush.h"
#include "kselftest.h"

struct addr {
	char local[INET6_ADDRSTRLEN];
	char peer[INET6_ADDRSTRLEN];	/* IFA_ADDRESS */
	__u32 address;		/* IPv4 IFA_ADDRESS, network order */
	__u32 flags;		/* IFA_FLAGS, or ifa_flags without it */
	int prefixlen;
	int ifindex;
	bool has_local;		/* IFA_LOCAL in the dump */
	bool secondary;
	bool listed;		/* -m select: FILE lists it */
};

struct addr_list {
	struct addr *a;
	unsigned int n;
};

static struct ynl_sock *ys;
static struct ynl_sock *rt;	/* route notifications, with -r */
static struct ynl_sock *at;	/* address notifications, with -r */
static unsigned long rt_new, rt_del, at_del;
static int ifindex;	/* 0: every device (-m select) */
static int family = AF_INET;	/* -6: AF_INET6 */

static void print_usage(void)
{
	fprintf(stderr,
		"usage: ifa_flusher [-m dump|secfirst|flag|bulk] [-o ADDR/LEN] [-r] DEV\n"
		"       ifa_flusher -6 [-m dump|bulk] [-r] DEV\n"
		"       ifa_flusher -m select FILE\n"
		"       ifa_flusher -c\n");
	exit(2);
}

/*
 * A notification socket for -r: rtnetlink @group joined, and a receive
 * buffer of RCVBUF bytes (SO_RCVBUFFORCE as root, else what SO_RCVBUF
 * gets), for a bulk delete sends all its notifications before its ack.
 */
#define RCVBUF	(64 << 20)

static struct ynl_sock *ntf_sock(const struct ynl_family *yf,
				 const char *name, unsigned int group)
{
	int size = RCVBUF, fd;
	struct ynl_error yerr;
	struct ynl_sock *s;

	s = ynl_sock_create(yf, &yerr);
	if (!s) {
		fprintf(stderr, "%s: %s\n", name, yerr.msg);
		return NULL;
	}
	fd = ynl_socket_get_fd(s);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (ifa_join(s, group)) {
		fprintf(stderr, "%s: group %u: %s\n", name, group,
			strerror(errno));
		ynl_sock_destroy(s);
		return NULL;
	}
	return s;
}

/* Count the queued notifications; -1 if some were lost. */
static int rt_drain(void)
{
	struct ynl_ntf_base_type *ntf;

	if (!rt)
		return 0;
	if (ynl_ntf_check(rt) < 0 || ynl_ntf_check(at) < 0) {
		/* e.g. ENOBUFS: some were lost, the counts would be wrong */
		perror("notifications");
		return -1;
	}
	while ((ntf = ynl_ntf_dequeue(rt))) {
		if (ntf->cmd == RTM_NEWROUTE)
			rt_new++;
		else if (ntf->cmd == RTM_DELROUTE)
			rt_del++;
		ynl_ntf_free(ntf);
	}
	while ((ntf = ynl_ntf_dequeue(at))) {
		if (ntf->cmd == RTM_DELADDR)
			at_del++;
		ynl_ntf_free(ntf);
	}
	return 0;
}

/*
 * The addresses of the family of ifindex (all of them if 0) in dump
 * order; with @only (ADDR/LEN, IPv4), the ones of that subnet.  0 or -1.
 */
static int dump_addrs(const char *only, struct addr_list *l)
{
	struct rt_addr_getaddr_req req = { ._hdr.ifa_family = family };
	unsigned int alen = family == AF_INET6 ? 16 : 4;
	struct rt_addr_getaddr_list *d;
	unsigned int plen = 0, n = 0;
	__u32 base = 0, mask = 0;

	if (only) {
		char buf[INET_ADDRSTRLEN + 4];
		char *slash, *end;

		snprintf(buf, sizeof(buf), "%s", only);
		slash = strchr(buf, '/');
		if (!slash)
			print_usage();
		*slash++ = '\0';
		plen = strtoul(slash, &end, 10);
		if (*end || plen < 1 || plen > 32 ||
		    inet_pton(AF_INET, buf, &base) != 1)
			print_usage();
		mask = htonl(0xffffffffu << (32 - plen));
		base &= mask;
	}

	d = rt_addr_getaddr_dump(ys, &req);
	if (!d) {
		fprintf(stderr, "address dump: %s\n", ys->err.msg);
		return -1;
	}
	ynl_dump_foreach(d, a)
		n++;
	free(l->a);
	l->a = calloc(n ? n : 1, sizeof(*l->a));
	l->n = 0;
	if (!l->a) {
		rt_addr_getaddr_list_free(d);
		return -1;
	}
	ynl_dump_foreach(d, a) {
		struct addr *e = &l->a[l->n];
		const void *local;

		if ((ifindex && (int)a->_hdr.ifa_index != ifindex) ||
		    a->_hdr.ifa_family != family || a->_len.address != alen)
			continue;
		e->has_local = a->_len.local == alen;
		local = e->has_local ? a->local : a->address;
		e->address = 0;
		if (family == AF_INET)
			memcpy(&e->address, a->address, 4);
		if (only && (a->_hdr.ifa_prefixlen != plen ||
			     (e->address & mask) != base))
			continue;
		inet_ntop(family, local, e->local, sizeof(e->local));
		inet_ntop(family, a->address, e->peer, sizeof(e->peer));
		e->flags = a->_present.flags ? a->flags : a->_hdr.ifa_flags;
		e->prefixlen = a->_hdr.ifa_prefixlen;
		e->ifindex = a->_hdr.ifa_index;
		e->listed = false;
		e->secondary = family == AF_INET &&
			       (a->_hdr.ifa_flags & IFA_F_SECONDARY);
		l->n++;
	}
	rt_addr_getaddr_list_free(d);
	return 0;
}

struct counts {
	unsigned int deleted, gone, failed;
};

/*
 * RTM_DELADDR of @a on @idx with @flags (IPv6: with its own, as dumped);
 * an address already gone counts.
 */
static void del_addr(const struct addr *a, int idx, __u32 flags,
		     struct counts *c)
{
	int err;

	if (family == AF_INET6)
		err = ifa_req(ys, RTM_DELADDR, 0, AF_INET6, idx, a->local,
			      a->has_local ? a->peer : NULL, a->prefixlen,
			      a->flags);
	else
		err = ifa_req(ys, RTM_DELADDR, 0, AF_INET, idx, a->local,
			      a->peer, a->prefixlen, flags);
	if (!err) {
		c->deleted++;
	} else if (err == -EADDRNOTAVAIL) {
		c->gone++;
	} else {
		c->failed++;
		fprintf(stderr, "delete %s/%d: %s\n", a->local, a->prefixlen,
			ys->err.msg);
	}
}

static int do_flush(const char *mode, const char *only)
{
	unsigned int i, pass, found;
	struct counts c = {};
	__u32 flags = strcmp(mode, "flag") ? 0 : IFA_F_FLUSH;
	bool secfirst = !strcmp(mode, "secfirst");
	bool bulk = !strcmp(mode, "bulk");
	/* secfirst: the secondaries in a first pass, the primaries next */
	unsigned int passes = secfirst ? 2 : bulk ? 0 : 1;
	struct addr_list l = {};

	if (dump_addrs(only, &l))
		return 1;
	found = l.n;
	if (bulk) {
		struct ifaddrmsg ifm = {
			.ifa_family = family,
			.ifa_index = ifindex,
		};

		if (ifa_bulk_del(ys, &ifm, NULL)) {
			c.failed = 1;
			fprintf(stderr, "bulk delete: %s\n", ys->err.msg);
		}
		if (rt_drain())
			return 1;
	}
	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < found; i++) {
			const struct addr *a = &l.a[i];

			if (secfirst && a->secondary != !pass)
				continue;
			del_addr(a, ifindex, flags, &c);
			if (rt_drain())
				return 1;
		}
	}
	if (dump_addrs(only, &l))
		return 1;
	if (bulk && !c.failed)
		c.deleted = found - l.n;
	printf("found %u deleted %u gone %u failed %u left %u", found,
	       c.deleted, c.gone, c.failed, l.n);
	if (rt)
		printf(" newroute %lu delroute %lu deladdr %lu", rt_new, rt_del,
		       at_del);
	printf("\n");
	free(l.a);
	return c.failed || l.n ? 1 : 0;
}

/* Mark the addresses of @l that @file lists; -1 if it cannot be read. */
static int read_list(const char *file, struct addr_list *l)
{
	char local[INET_ADDRSTRLEN], peer[INET_ADDRSTRLEN];
	int idx, plen, n;
	unsigned int i;
	FILE *f;

	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	while ((n = fscanf(f, "%d %15s %15s %d", &idx, local, peer,
			   &plen)) == 4) {
		for (i = 0; i < l->n; i++) {
			struct addr *a = &l->a[i];

			if (a->ifindex == idx && a->prefixlen == plen &&
			    !strcmp(a->local, local) && !strcmp(a->peer, peer))
				a->listed = true;
		}
	}
	fclose(f);
	if (n != EOF) {
		fprintf(stderr, "%s: want IFINDEX LOCAL ADDRESS PLEN lines\n",
			file);
		return -1;
	}
	return 0;
}

static bool same_subnet(const struct addr *a, const struct addr *b)
{
	__u32 mask = htonl(a->prefixlen ? ~0U << (32 - a->prefixlen) : 0);

	return a->ifindex == b->ifindex && a->prefixlen == b->prefixlen &&
	       !((a->address ^ b->address) & mask);
}

/*
 * Whether a primary goes with its whole subnet: it and every secondary of
 * its subnet are listed.  Quadratic, as befits a test's few addresses.
 */
static bool subnet_listed(const struct addr_list *l, const struct addr *p)
{
	unsigned int i;

	if (!p->listed)
		return false;
	for (i = 0; i < l->n; i++)
		if (!l->a[i].listed && same_subnet(&l->a[i], p))
			return false;
	return true;
}

/* -m select: flush what @file lists, as "ip address flush" does. */
static int do_select(const char *file)
{
	unsigned int i, j, found, listed = 0, flagged = 0, left = 0;
	struct addr_list l = {};
	struct counts c = {};
	bool *skip;
	int ret = 1;

	if (dump_addrs(NULL, &l) || read_list(file, &l))
		goto out;
	found = l.n;
	skip = calloc(l.n ? l.n : 1, sizeof(*skip));
	if (!skip)
		goto out;
	/* a flagged primary takes the secondaries of its subnet along */
	for (i = 0; i < l.n; i++) {
		const struct addr *p = &l.a[i];

		if (p->secondary || !subnet_listed(&l, p))
			continue;
		for (j = 0; j < l.n; j++)
			if (l.a[j].secondary && same_subnet(&l.a[j], p))
				skip[j] = true;
	}
	for (i = 0; i < l.n; i++) {
		const struct addr *a = &l.a[i];
		__u32 flags = 0;

		if (!a->listed)
			continue;
		listed++;
		if (skip[i])
			continue;
		if (!a->secondary && subnet_listed(&l, a)) {
			flags = IFA_F_FLUSH;
			flagged++;
		}
		del_addr(a, a->ifindex, flags, &c);
	}
	free(skip);
	if (dump_addrs(NULL, &l) || read_list(file, &l))
		goto out;
	for (i = 0; i < l.n; i++)
		left += l.a[i].listed;
	printf("found %u listed %u flagged %u ", found, listed, flagged);
	printf("deleted %u gone %u failed %u left %u\n", c.deleted, c.gone,
	       c.failed, left);
	ret = c.failed || left;
out:
	free(l.a);
	return ret;
}

/* In the network namespace main() made for it. */
static int do_check(void)
{
	int known;

	known = ifa_flag_known(ys, if_nametoindex("lo"), "10.3.0.1");
	if (known < 0) {
		fprintf(stderr, "RTM_NEWADDR with IFA_F_FLUSH: %s\n",
			ys->err.msg);
		return 1;
	}
	if (!known)
		printf("IFA_F_FLUSH unknown to this kernel\n");
	return known ? 0 : KSFT_SKIP;
}

int main(int argc, char **argv)
{
	const char *mode = "dump", *only = NULL;
	bool routes = false, check = false;
	struct ynl_error yerr;
	int opt, ret;

	while ((opt = getopt(argc, argv, "6cm:o:r")) != -1) {
		switch (opt) {
		case '6':
			family = AF_INET6;
			break;
		case 'c':
			check = true;
			break;
		case 'm':
			mode = optarg;
			if (strcmp(mode, "dump") && strcmp(mode, "secfirst") &&
			    strcmp(mode, "flag") && strcmp(mode, "bulk") &&
			    strcmp(mode, "select"))
				print_usage();
			break;
		case 'o':
			only = optarg;
			break;
		case 'r':
			routes = true;
			break;
		default:
			print_usage();
		}
	}
	if (check ? optind != argc : optind != argc - 1)
		print_usage();
	if ((only && !strcmp(mode, "bulk")) ||
	    ((only || routes) && !strcmp(mode, "select")))
		print_usage();
	/* IPv6: a whole device, one address at a time or in bulk */
	if (family == AF_INET6 &&
	    (check || only || (strcmp(mode, "dump") && strcmp(mode, "bulk"))))
		print_usage();
	if (!check && strcmp(mode, "select")) {
		ifindex = if_nametoindex(argv[optind]);
		if (!ifindex) {
			fprintf(stderr, "%s: no such device\n", argv[optind]);
			return 2;
		}
	}

	/* -c asks in a namespace of its own: before the socket is made */
	if (check && unshare(CLONE_NEWNET)) {
		perror("unshare(CLONE_NEWNET)");
		return 1;
	}
	ys = ynl_sock_create(&ynl_rt_addr_family, &yerr);
	if (!ys) {
		fprintf(stderr, "rt-addr: %s\n", yerr.msg);
		return 1;
	}
	if (routes) {
		rt = ntf_sock(&ynl_rt_route_family, "rt-route",
			      family == AF_INET6 ? RTNLGRP_IPV6_ROUTE :
						   RTNLGRP_IPV4_ROUTE);
		at = ntf_sock(&ynl_rt_addr_family, "rt-addr",
			      family == AF_INET6 ? RTNLGRP_IPV6_IFADDR :
						   RTNLGRP_IPV4_IFADDR);
		if (!rt || !at)
			return 1;
	}
	if (check)
		ret = do_check();
	else if (!strcmp(mode, "select"))
		ret = do_select(argv[optind]);
	else
		ret = do_flush(mode, only);
	if (rt) {
		ynl_sock_destroy(rt);
		ynl_sock_destroy(at);
	}
	ynl_sock_destroy(ys);
	return ret;
}

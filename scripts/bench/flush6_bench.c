// SPDX-License-Identifier: GPL-2.0
/*
 * flush6_bench: add or flush many IPv6 addresses of one device over raw
 * rtnetlink, in batches, for the IPv6 layouts of scripts/bench/bench-flush.sh.
 * The IPv6 twin of flush_bench.c (IPv4), kept apart from it so that the
 * IPv4 figures stay tied to the helper they were measured with.
 *
 *   flush6_bench [-m dump|bulk] [-b BATCH] DEV
 *	Dump the IPv6 addresses of DEV and delete them with RTM_DELADDR:
 *	dump: one request per address, in dump order (what "ip -6 addr
 *	      flush" sends, here in batches);
 *	bulk: one RTM_DELADDR with NLM_F_BULK for the whole device.
 *	An address already gone (EADDRNOTAVAIL) is counted as gone.  Prints
 *	the number of addresses found, deleted, gone, failed and left, and
 *	the seconds from the first dump to the last ack (CLOCK_MONOTONIC: no
 *	process start-up, no final dump); bulk also the seconds of its
 *	request alone ("req").  Exits 0 only if no request failed otherwise
 *	and a final dump shows no IPv6 address left on DEV.
 *
 *   flush6_bench -a COUNT -p ADDR/LEN [-s PER_SUBNET] [-b BATCH] DEV
 *	Add COUNT addresses of prefix length LEN: hosts 1, 2, ... of the
 *	subnet ADDR/LEN, or, with -s, PER_SUBNET hosts (1 .. PER_SUBNET) of
 *	each of the consecutive subnets of length LEN from ADDR/LEN
 *	(-p 2001:db8::/128 -s 1: COUNT /128s 2001:db8::1, 2001:db8::2, ...).
 *	Then waits until the kernel has finished adding them (below), and
 *	prints the number added and failed and "wait", the seconds from the
 *	last ack to the end of that wait.
 *
 * An IPv6 address is still tentative when the ack of its RTM_NEWADDR
 * comes: the rest of its add is done afterwards by a work item,
 * addrconf_dad_work(), under RTNL.  On a device without duplicate address
 * detection (IFF_NOARP, as dummy) that work ends it at once: it clears
 * IFA_F_TENTATIVE, sends the address's RTM_NEWADDR notification without
 * that flag and inserts its local route.  So the add counts as done when
 * every address has been notified without IFA_F_TENTATIVE (read from
 * RTNLGRP_IPV6_IFADDR between the batches and after the last one; if
 * notifications are lost, ENOBUFS, from dumps, each after a notification)
 * and one more request that takes RTNL has been answered: the work of the
 * last address holds RTNL until its route is in.  A flush timed later
 * does not pay for the adds.
 *
 * Requests are sent BATCH (default 64) at a time, each with NLM_F_ACK,
 * and all the acks of a batch are read before the next one is sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

#define RCVBUF_SIZE	(4 << 20)
/* the notifications of the adds, read between batches */
#define NOTIFY_RCVBUF	(64 << 20)
#define RECV_LEN	(64 << 10)
#define MAX_BATCH	1024

struct addr {
	struct in6_addr local;
	struct in6_addr address;
	__u8 prefixlen;
	__u32 flags;
};

struct addr_list {
	struct addr *a;
	unsigned int n, cap;
};

/* One delete or add request: room for two address attributes. */
struct req {
	struct nlmsghdr nlh;
	struct ifaddrmsg ifa;
	char attrs[2 * NLA_ALIGN(NLA_HDRLEN + sizeof(struct in6_addr))];
};

/*
 * The addresses of an add: address i (0 .. count - 1) is host
 * i % per + 1 of subnet i / per, the subnets of length 128 - shift
 * following each other from base (host order); of /128s (shift 0, per
 * 1), base + i + 1.
 */
struct layout {
	unsigned __int128 base;
	unsigned int shift;
	unsigned long count, per;
};

/* Which addresses of the add have been notified without IFA_F_TENTATIVE. */
struct done {
	unsigned char *bits;
	unsigned long n;
	bool lost;		/* ENOBUFS: notifications were dropped */
};

static int nl_fd, ntf_fd;
static unsigned int nl_seq;
static int ifindex;
static union {
	struct nlmsghdr nlh;
	char buf[RECV_LEN];
} rbuf;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: flush6_bench [-m dump|bulk] [-b BATCH] DEV\n"
		"       flush6_bench -a COUNT -p ADDR/LEN [-s PER_SUBNET]\n"
		"                    [-b BATCH] DEV\n");
	exit(2);
}

/*
 * A rtnetlink socket with a receive buffer of @size, or -1.
 */
static int nl_socket(int size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("socket(NETLINK_ROUTE)");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)))
		perror("setsockopt(SO_RCVBUF)");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("bind(NETLINK_ROUTE)");
		close(fd);
		return -1;
	}
	return fd;
}

static int nl_open(void)
{
	int one = 1;

	nl_fd = nl_socket(RCVBUF_SIZE);
	if (nl_fd < 0)
		return -1;
	/* Small acks (no copy of the request) with the extack message. */
	if (setsockopt(nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
		       sizeof(one)) ||
	    setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
		       sizeof(one))) {
		perror("setsockopt(NETLINK_CAP_ACK/EXT_ACK)");
		return -1;
	}
	return 0;
}

/* The IPv6 address notifications, on a socket of their own. */
static int notify_open(void)
{
	int grp = RTNLGRP_IPV6_IFADDR;

	ntf_fd = nl_socket(NOTIFY_RCVBUF);
	if (ntf_fd < 0)
		return -1;
	if (setsockopt(ntf_fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp))) {
		perror("setsockopt(NETLINK_ADD_MEMBERSHIP)");
		return -1;
	}
	return 0;
}

/* A read of @fd into rbuf; -1 with errno set (not printed) on error. */
static ssize_t nl_recv(int fd, int flags)
{
	struct sockaddr_nl sa;
	struct iovec iov = { rbuf.buf, sizeof(rbuf.buf) };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t len;

	do {
		len = recvmsg(fd, &msg, flags);
	} while (len < 0 && errno == EINTR);
	if (len >= 0 && (msg.msg_flags & MSG_TRUNC)) {
		fprintf(stderr, "netlink message truncated\n");
		errno = EMSGSIZE;
		return -1;
	}
	return len;
}

/* A read of the request socket: the acks and dumps. */
static ssize_t nl_recv_req(void)
{
	ssize_t len = nl_recv(nl_fd, 0);

	if (len < 0 && errno != EMSGSIZE)
		perror("recvmsg(NETLINK_ROUTE)");
	return len;
}

static int nl_send(const void *buf, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t ret;

	do {
		ret = sendto(nl_fd, buf, len, 0, (struct sockaddr *)&sa,
			     sizeof(sa));
	} while (ret < 0 && errno == EINTR);
	if (ret != (ssize_t)len) {
		perror("sendto(NETLINK_ROUTE)");
		return -1;
	}
	return 0;
}

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

static int addr_list_add(struct addr_list *l, const struct addr *a)
{
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 1024;
		struct addr *p = realloc(l->a, cap * sizeof(*p));

		if (!p) {
			perror("realloc");
			return -1;
		}
		l->a = p;
		l->cap = cap;
	}
	l->a[l->n++] = *a;
	return 0;
}

/*
 * An IPv6 address message of ifindex into @a (the address in local; its
 * peer, if any, in address); false for another family or device.
 */
static bool parse_addr(const struct nlmsghdr *nlh, struct addr *a)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nlh);
	const struct rtattr *rta;
	bool have_local = false;
	int rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    ifa->ifa_family != AF_INET6 || (int)ifa->ifa_index != ifindex)
		return false;
	memset(a, 0, sizeof(*a));
	a->prefixlen = ifa->ifa_prefixlen;
	a->flags = ifa->ifa_flags;
	rem = IFA_PAYLOAD(nlh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem)) {
		switch (rta->rta_type) {
		case IFA_LOCAL:
			if (RTA_PAYLOAD(rta) < sizeof(a->local))
				break;
			memcpy(&a->local, RTA_DATA(rta), sizeof(a->local));
			have_local = true;
			break;
		case IFA_ADDRESS:
			if (RTA_PAYLOAD(rta) < sizeof(a->address))
				break;
			memcpy(&a->address, RTA_DATA(rta), sizeof(a->address));
			break;
		case IFA_FLAGS:
			if (RTA_PAYLOAD(rta) >= sizeof(a->flags))
				memcpy(&a->flags, RTA_DATA(rta),
				       sizeof(a->flags));
			break;
		}
	}
	if (!have_local)
		a->local = a->address;
	return true;
}

/* Dump the IPv6 addresses of ifindex, in kernel order. */
static int dump_addrs(struct addr_list *l)
{
	struct {
		struct nlmsghdr nlh;
		struct ifaddrmsg ifa;
	} req = {
		.nlh = {
			.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
			.nlmsg_type = RTM_GETADDR,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = ++nl_seq,
		},
		.ifa = { .ifa_family = AF_INET6, .ifa_index = ifindex },
	};
	int ret = 0;

	l->n = 0;
	if (nl_send(&req, req.nlh.nlmsg_len))
		return -1;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = nl_recv_req();
		int rem;

		if (len < 0)
			return -1;
		rem = len;
		for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			struct addr a;

			if (nlh->nlmsg_seq != nl_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return ret;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				bool short_msg = nlh->nlmsg_len <
						 NLMSG_LENGTH(sizeof(*e));

				fprintf(stderr, "address dump: %s\n",
					short_msg ? "short error message" :
						    strerror(-e->error));
				return -1;
			}
			if (nlh->nlmsg_type == RTM_NEWADDR &&
			    parse_addr(nlh, &a) && addr_list_add(l, &a))
				ret = -1;
		}
	}
}

static void put_addr(struct req *r, unsigned short type,
		     const struct in6_addr *v)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)r + off);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + sizeof(*v);
	memcpy((char *)nla + NLA_HDRLEN, v, sizeof(*v));
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
}

static void build_req(struct req *r, int type, int flags,
		      const struct addr *a)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh.nlmsg_seq = ++nl_seq;
	r->ifa.ifa_family = AF_INET6;
	r->ifa.ifa_index = ifindex;
	/* NLM_F_BULK is NLM_F_EXCL's bit: a delete's only */
	if (type == RTM_DELADDR && (flags & NLM_F_BULK))
		return;		/* the device, nothing else */
	r->ifa.ifa_prefixlen = a->prefixlen;
	put_addr(r, IFA_LOCAL, &a->local);
	put_addr(r, IFA_ADDRESS, &a->address);
}

struct counts {
	unsigned int ok, gone, failed;
};

/*
 * Send the requests for addrs[0..n) in batches and read every ack,
 * calling @after (if any) after each batch.  EADDRNOTAVAIL is counted as
 * gone when tolerated, anything else as failed.
 */
static int run_requests(const struct addr *const *addrs, unsigned int n,
			unsigned int batch, int type, int flags,
			bool tolerate_gone, struct counts *c,
			int (*after)(void))
{
	static struct req reqs[MAX_BATCH];
	unsigned int i, j, k;

	for (i = 0; i < n; i += batch) {
		__u32 first_seq = nl_seq + 1;
		unsigned int cnt = n - i < batch ? n - i : batch;
		unsigned int acked = 0;
		size_t len = 0;
		char *p = (char *)reqs;

		for (j = 0; j < cnt; j++) {
			struct req r;

			build_req(&r, type, flags, addrs[i + j]);
			memcpy(p + len, &r, r.nlh.nlmsg_len);
			len += NLMSG_ALIGN(r.nlh.nlmsg_len);
		}
		if (nl_send(reqs, len))
			return -1;

		while (acked < cnt) {
			const struct nlmsghdr *nlh;
			ssize_t rlen = nl_recv_req();
			int rem;

			if (rlen < 0)
				return -1;
			rem = rlen;
			for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
			     nlh = NLMSG_NEXT(nlh, rem)) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				const struct addr *a;
				char buf[INET6_ADDRSTRLEN];
				const char *msg;

				if (nlh->nlmsg_type != NLMSG_ERROR)
					continue;
				k = nlh->nlmsg_seq - first_seq;
				if (k >= cnt)
					continue;
				acked++;
				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
					fprintf(stderr, "short ack\n");
					c->failed++;
					continue;
				}
				if (!e->error) {
					c->ok++;
					continue;
				}
				if (e->error == -EADDRNOTAVAIL &&
				    tolerate_gone) {
					c->gone++;
					continue;
				}
				c->failed++;
				msg = ack_msg(nlh);
				if (type == RTM_DELADDR && flags & NLM_F_BULK) {
					fprintf(stderr, "bulk delete: %s%s%s\n",
						strerror(-e->error),
						msg ? ": " : "", msg ? msg : "");
					continue;
				}
				a = addrs[i + k];
				inet_ntop(AF_INET6, &a->local, buf,
					  sizeof(buf));
				fprintf(stderr, "%s %s/%u: %s%s%s\n",
					type == RTM_NEWADDR ? "add" : "delete",
					buf, a->prefixlen, strerror(-e->error),
					msg ? ": " : "", msg ? msg : "");
			}
		}
		if (after && after())
			return -1;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int do_flush(const char *mode, unsigned int batch)
{
	struct addr_list l = {};
	const struct addr **order;
	struct counts c = {};
	unsigned int i, found;
	double t0 = now(), secs, req = -1;
	int ret;

	if (dump_addrs(&l))
		return 1;
	found = l.n;

	if (!strcmp(mode, "bulk")) {
		/* one request: the address fields are not sent */
		static const struct addr none;
		const struct addr *one = &none;

		req = now();
		ret = run_requests(&one, 1, 1, RTM_DELADDR, NLM_F_BULK, false,
				   &c, NULL);
		secs = now() - t0;
		req = now() - req;
		if (ret || dump_addrs(&l))
			return 1;
		c.ok = c.failed ? 0 : found - l.n;
	} else {
		order = calloc(found ? found : 1, sizeof(*order));
		if (!order) {
			perror("calloc");
			return 1;
		}
		for (i = 0; i < found; i++)
			order[i] = &l.a[i];
		ret = run_requests(order, found, batch, RTM_DELADDR, 0, true,
				   &c, NULL);
		secs = now() - t0;
		free(order);
		if (ret || dump_addrs(&l))
			return 1;
	}
	/* bulk: "req", the request alone (its ack included): the upper
	 * bound of the time it holds RTNL
	 */
	printf("found %u deleted %u gone %u failed %u left %u ",
	       found, c.ok, c.gone, c.failed, l.n);
	if (req >= 0)
		printf("req %.6f ", req);
	printf("secs %.6f\n", secs);
	free(l.a);
	return c.failed || l.n ? 1 : 0;
}

static void u128_to_addr(unsigned __int128 v, struct in6_addr *a)
{
	int i;

	for (i = 15; i >= 0; i--) {
		a->s6_addr[i] = v & 0xff;
		v >>= 8;
	}
}

static unsigned __int128 addr_to_u128(const struct in6_addr *a)
{
	unsigned __int128 v = 0;
	int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | a->s6_addr[i];
	return v;
}

/* Address i of the layout. */
static void layout_addr(const struct layout *lay, unsigned long i,
			struct in6_addr *a)
{
	u128_to_addr(lay->base + ((unsigned __int128)(i / lay->per) <<
				  lay->shift) + i % lay->per + 1, a);
}

/* The index of @a in the layout, or -1 if it is not one of its addresses. */
static long layout_index(const struct layout *lay, const struct in6_addr *a)
{
	unsigned __int128 v = addr_to_u128(a), off, sub, host;
	unsigned long subnets = (lay->count + lay->per - 1) / lay->per;

	if (v <= lay->base)
		return -1;
	off = v - lay->base;
	if (!lay->shift)	/* /128s: base + 1, base + 2, ... */
		return off <= lay->count ? (long)off - 1 : -1;
	sub = off >> lay->shift;
	host = off - (sub << lay->shift);
	if (sub >= subnets || host < 1 || host > lay->per ||
	    sub * lay->per + host - 1 >= lay->count)
		return -1;
	return sub * lay->per + host - 1;
}

static struct layout lay;
static struct done dad;

/* Note address i of the layout as done. */
static void dad_note(long i)
{
	unsigned char bit;

	if (i < 0)
		return;
	bit = 1 << (i % 8);
	if (dad.bits[i / 8] & bit)
		return;
	dad.bits[i / 8] |= bit;
	dad.n++;
}

/*
 * Read the address notifications waiting (without blocking), or, with
 * @block, one read (waiting for it); note the adds they end.  ENOBUFS
 * sets dad.lost.
 */
static int dad_read(bool block)
{
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = nl_recv(ntf_fd, block ? 0 : MSG_DONTWAIT);
		int rem;

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOBUFS) {
				dad.lost = true;
				return 0;
			}
			perror("recvmsg(RTNLGRP_IPV6_IFADDR)");
			return -1;
		}
		rem = len;
		for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			struct addr a;

			if (nlh->nlmsg_type == RTM_NEWADDR &&
			    parse_addr(nlh, &a) &&
			    !(a.flags & IFA_F_TENTATIVE))
				dad_note(layout_index(&lay, &a.local));
		}
		if (block)
			return 0;
	}
}

static int dad_drain(void)
{
	return dad_read(false);
}

/*
 * Wait until the @added addresses that the kernel acked are no longer
 * tentative and their work is done (see the top of this file).
 */
static int dad_wait(unsigned long added)
{
	static const struct addr none = { .prefixlen = 128 };
	const struct addr *barrier = &none;
	struct addr_list l = {};
	struct counts c = {};
	unsigned int i, tentative;

	while (!dad.lost && dad.n < added)
		if (dad_read(true))
			return -1;
	while (dad.lost) {
		/* notifications lost: dumps until none is tentative */
		if (dump_addrs(&l))
			return -1;
		for (i = 0, tentative = 0; i < l.n; i++)
			if (layout_index(&lay, &l.a[i].local) >= 0 &&
			    l.a[i].flags & IFA_F_TENTATIVE)
				tentative++;
		if (!tentative)
			break;
		/* the next notification (or ENOBUFS), then all waiting */
		if (dad_read(true) || dad_drain())
			return -1;
	}
	free(l.a);
	/* ::/128 is no address of the device: EADDRNOTAVAIL, under RTNL */
	if (run_requests(&barrier, 1, 1, RTM_DELADDR, 0, true, &c, NULL))
		return -1;
	return c.gone == 1 ? 0 : -1;
}

/* ADDR/LEN (LEN 1..128) into the layout's base and shift. */
static void parse_prefix(const char *prefix)
{
	char buf[INET6_ADDRSTRLEN + 4];	/* ADDR/LEN */
	unsigned __int128 hostmask;
	struct in6_addr a;
	unsigned int len;
	char *slash, *end;

	if (snprintf(buf, sizeof(buf), "%s", prefix) >= (int)sizeof(buf))
		print_usage();
	slash = strchr(buf, '/');
	if (!slash)
		print_usage();
	*slash++ = '\0';
	len = strtoul(slash, &end, 10);
	if (*end || len < 1 || len > 128 || inet_pton(AF_INET6, buf, &a) != 1)
		print_usage();
	lay.shift = 128 - len;
	hostmask = ((unsigned __int128)1 << lay.shift) - 1;
	lay.base = addr_to_u128(&a) & ~hostmask;
}

static int do_add(unsigned long count, const char *prefix,
		  unsigned long per_subnet, unsigned int batch)
{
	const struct addr **order;
	struct counts c = {};
	unsigned __int128 hosts, last_subnet;
	unsigned long subnets, i;
	struct addr *addrs;
	double t_acked;
	int ret;

	parse_prefix(prefix);
	/* /128: one address per "subnet" (-s 1); host 0 is not used */
	if (!lay.shift)
		hosts = 1;
	else if (lay.shift >= 64)
		hosts = ULONG_MAX;
	else
		hosts = ((unsigned __int128)1 << lay.shift) - 1;
	if (!per_subnet)
		per_subnet = count;	/* all in the one subnet */
	subnets = (count + per_subnet - 1) / per_subnet;
	last_subnet = (~(unsigned __int128)0 >> lay.shift) -
		      (lay.base >> lay.shift);
	if (per_subnet > hosts || subnets - 1 > last_subnet) {
		fprintf(stderr, "%lu addresses do not fit in %s\n", count,
			prefix);
		return 2;
	}
	lay.count = count;
	lay.per = per_subnet;

	addrs = calloc(count, sizeof(*addrs));
	order = calloc(count, sizeof(*order));
	dad.bits = calloc(count / 8 + 1, 1);
	if (!addrs || !order || !dad.bits) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < count; i++) {
		layout_addr(&lay, i, &addrs[i].local);
		addrs[i].address = addrs[i].local;
		addrs[i].prefixlen = 128 - lay.shift;
		order[i] = &addrs[i];
	}

	if (notify_open())
		return 1;
	ret = run_requests(order, count, batch, RTM_NEWADDR,
			   NLM_F_CREATE | NLM_F_EXCL, false, &c, dad_drain);
	t_acked = now();
	if (!ret)
		ret = dad_wait(c.ok);
	free(order);
	free(addrs);
	free(dad.bits);
	if (ret)
		return 1;
	printf("added %u failed %u wait %.6f\n", c.ok, c.failed,
	       now() - t_acked);
	return c.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0, per_subnet = 0, batch = 64;
	const char *mode = "dump", *prefix = NULL;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "a:b:m:p:s:")) != -1) {
		switch (opt) {
		case 'a':
			count = strtoul(optarg, &end, 0);
			if (*end || !count || count > INT_MAX)
				print_usage();
			break;
		case 'b':
			batch = strtoul(optarg, &end, 0);
			if (*end || !batch || batch > MAX_BATCH)
				print_usage();
			break;
		case 'm':
			mode = optarg;
			if (strcmp(mode, "dump") && strcmp(mode, "bulk"))
				print_usage();
			break;
		case 'p':
			prefix = optarg;
			break;
		case 's':
			per_subnet = strtoul(optarg, &end, 0);
			if (*end || !per_subnet)
				print_usage();
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc - 1 || (count && !prefix) || (!count && prefix))
		print_usage();

	ifindex = if_nametoindex(argv[optind]);
	if (!ifindex) {
		fprintf(stderr, "%s: no such device\n", argv[optind]);
		return 2;
	}
	if (nl_open())
		return 1;

	if (count)
		return do_add(count, prefix, per_subnet, batch);
	return do_flush(mode, batch);
}

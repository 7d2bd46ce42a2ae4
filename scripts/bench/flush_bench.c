// SPDX-License-Identifier: GPL-2.0
/*
 * flush_bench: add or flush many IPv4 addresses of one device over raw
 * rtnetlink, in batches, for scripts/bench/bench-flush.sh.  (The selftests'
 * ifa_flusher does the same one request at a time through YNL; this tool
 * batches requests so that tens of thousands of them cost little besides
 * the kernel's own work.)
 *
 *   flush_bench [-m dump|secfirst|flag|flagprim|bulk] [-b BATCH] DEV
 *	Dump the IPv4 addresses of DEV and delete them with RTM_DELADDR:
 *	dump:     in dump order (what "ip addr flush" does);
 *	secfirst: secondaries first, then primaries (the userspace-only
 *		  way to avoid promotions, iproute2 2009-2015);
 *	flag:     in dump order with IFA_F_FLUSH in IFA_FLAGS, so that
 *		  deleting a primary also deletes its secondaries;
 *	flagprim: the primaries only, with IFA_F_FLUSH (the lower bound:
 *		  no request for an address already gone);
 *	bulk:     one RTM_DELADDR with NLM_F_BULK for the whole device.
 *	An address already removed together with its primary
 *	(EADDRNOTAVAIL) is counted as gone.  Prints the number of addresses
 *	found, deleted, gone and left, and the seconds from the first dump
 *	to the last ack (CLOCK_MONOTONIC: no process start-up, no final
 *	dump); bulk also the seconds of its request alone ("req"); exits 0 only if no request failed otherwise and a final dump
 *	shows no IPv4 address left on DEV.
 *
 *   flush_bench -a COUNT -p ADDR/LEN [-s PER_SUBNET] [-l LABEL] [-b BATCH] DEV
 *	Add COUNT addresses: hosts 1, 2, ... of the subnet ADDR/LEN, or,
 *	with -s, PER_SUBNET hosts (1 .. PER_SUBNET) of each of the
 *	consecutive subnets of length LEN starting at ADDR/LEN; with -l,
 *	each with the label LABEL (IFA_LABEL).
 *
 * Requests are sent BATCH (default 64) at a time, each with NLM_F_ACK,
 * and all the acks of a batch are read before the next one is sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
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

#ifndef IFA_F_FLUSH
#define IFA_F_FLUSH	0x1000
#endif

#define RCVBUF_SIZE	(4 << 20)
#define RECV_LEN	(64 << 10)
#define MAX_BATCH	1024

struct addr {
	__u32 local;		/* network order */
	__u32 address;	/* network order */
	__u8 prefixlen;
	__u32 flags;
};

struct addr_list {
	struct addr *a;
	unsigned int n, cap;
};

/* One delete or add request: room for three attributes and a label. */
struct req {
	struct nlmsghdr nlh;
	struct ifaddrmsg ifa;
	char attrs[3 * NLA_ALIGN(NLA_HDRLEN + 4) +
		   NLA_ALIGN(NLA_HDRLEN + IFNAMSIZ)];
};

static int nl_fd;
static unsigned int nl_seq;
static int ifindex;
static const char *add_label;	/* -l: IFA_LABEL of the adds */
static union {
	struct nlmsghdr nlh;
	char buf[RECV_LEN];
} rbuf;

static void print_usage(void)
{
	fprintf(stderr,
		"usage: flush_bench [-m dump|secfirst|flag|flagprim|bulk]\n"
		"                   [-b BATCH] DEV\n"
		"       flush_bench -a COUNT -p ADDR/LEN [-s PER_SUBNET]\n"
		"                   [-l LABEL] [-b BATCH] DEV\n");
	exit(2);
}

/*
 * A rtnetlink socket with a receive buffer of @size (the acks of a
 * batch), or -1.
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

static ssize_t nl_recv(void)
{
	struct sockaddr_nl sa;
	struct iovec iov = { rbuf.buf, sizeof(rbuf.buf) };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t len;

	do {
		len = recvmsg(nl_fd, &msg, 0);
	} while (len < 0 && errno == EINTR);
	if (len < 0) {
		perror("recvmsg(NETLINK_ROUTE)");
		return -1;
	}
	if (msg.msg_flags & MSG_TRUNC) {
		fprintf(stderr, "netlink message truncated\n");
		return -1;
	}
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

static void parse_addr(const struct nlmsghdr *nlh, struct addr_list *l,
		       int *ret)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nlh);
	const struct rtattr *rta;
	struct addr a = {};
	bool have_local = false;
	int rem;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) ||
	    ifa->ifa_family != AF_INET || (int)ifa->ifa_index != ifindex)
		return;
	a.prefixlen = ifa->ifa_prefixlen;
	a.flags = ifa->ifa_flags;
	rem = IFA_PAYLOAD(nlh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem)) {
		if (RTA_PAYLOAD(rta) < 4)
			continue;
		switch (rta->rta_type) {
		case IFA_LOCAL:
			memcpy(&a.local, RTA_DATA(rta), 4);
			have_local = true;
			break;
		case IFA_ADDRESS:
			memcpy(&a.address, RTA_DATA(rta), 4);
			break;
		case IFA_FLAGS:
			memcpy(&a.flags, RTA_DATA(rta), 4);
			break;
		}
	}
	if (!have_local)
		a.local = a.address;
	if (addr_list_add(l, &a))
		*ret = -1;
}

/* Dump the IPv4 addresses of ifindex, in kernel order. */
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
		.ifa = { .ifa_family = AF_INET, .ifa_index = ifindex },
	};
	int ret = 0;

	l->n = 0;
	if (nl_send(&req, req.nlh.nlmsg_len))
		return -1;
	for (;;) {
		const struct nlmsghdr *nlh;
		ssize_t len = nl_recv();
		int rem;

		if (len < 0)
			return -1;
		rem = len;
		for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
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
			if (nlh->nlmsg_type == RTM_NEWADDR)
				parse_addr(nlh, l, &ret);
		}
	}
}

static void put_u32(struct req *r, unsigned short type, __u32 v)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)r + off);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + sizeof(v);
	memcpy((char *)nla + NLA_HDRLEN, &v, sizeof(v));
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
}

static void put_str(struct req *r, unsigned short type, const char *v)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)r + off);
	size_t len = strlen(v) + 1;

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, v, len);
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
}

static void build_req(struct req *r, int type, int flags,
		      const struct addr *a, __u32 ifa_flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh.nlmsg_seq = ++nl_seq;
	r->ifa.ifa_family = AF_INET;
	r->ifa.ifa_index = ifindex;
	/* NLM_F_BULK is NLM_F_EXCL's bit: a delete's only */
	if (type == RTM_DELADDR && (flags & NLM_F_BULK))
		return;		/* the device, nothing else */
	r->ifa.ifa_prefixlen = a->prefixlen;
	put_u32(r, IFA_LOCAL, a->local);
	put_u32(r, IFA_ADDRESS, a->address);
	if (ifa_flags)
		put_u32(r, IFA_FLAGS, ifa_flags);
	if (type == RTM_NEWADDR && add_label)
		put_str(r, IFA_LABEL, add_label);
}

struct counts {
	unsigned int ok, gone, failed;
};

/*
 * Send the requests for addrs[0..n) in batches and read every ack.
 * EADDRNOTAVAIL is counted as gone when tolerated, anything else as failed.
 */
static int run_requests(const struct addr *const *addrs, unsigned int n,
			unsigned int batch, int type, int flags,
			__u32 ifa_flags, bool tolerate_gone,
			struct counts *c)
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

			build_req(&r, type, flags, addrs[i + j], ifa_flags);
			memcpy(p + len, &r, r.nlh.nlmsg_len);
			len += NLMSG_ALIGN(r.nlh.nlmsg_len);
		}
		if (nl_send(reqs, len))
			return -1;

		while (acked < cnt) {
			const struct nlmsghdr *nlh;
			ssize_t rlen = nl_recv();
			int rem;

			if (rlen < 0)
				return -1;
			rem = rlen;
			for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
			     nlh = NLMSG_NEXT(nlh, rem)) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);
				const struct addr *a;
				char buf[INET_ADDRSTRLEN];
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
				a = addrs[i + k];
				inet_ntop(AF_INET, &a->local, buf, sizeof(buf));
				msg = ack_msg(nlh);
				fprintf(stderr, "%s %s/%u: %s%s%s\n",
					type == RTM_NEWADDR ? "add" : "delete",
					buf, a->prefixlen, strerror(-e->error),
					msg ? ": " : "", msg ? msg : "");
			}
		}
	}
	return 0;
}

/* ADDR/LEN (LEN 1..max_len) into host-order prefix and mask. */
static void parse_prefix(const char *prefix, unsigned int max_len,
			 __u32 *base, __u32 *mask, unsigned int *plen)
{
	char buf[INET_ADDRSTRLEN + 4];	/* ADDR/LEN */
	unsigned int len;
	char *slash, *end;

	if (snprintf(buf, sizeof(buf), "%s", prefix) >= (int)sizeof(buf))
		print_usage();
	slash = strchr(buf, '/');
	if (!slash)
		print_usage();
	*slash++ = '\0';
	len = strtoul(slash, &end, 10);
	if (*end || len < 1 || len > max_len ||
	    inet_pton(AF_INET, buf, base) != 1)
		print_usage();
	*mask = 0xffffffffu << (32 - len);
	*base = ntohl(*base) & *mask;
	*plen = len;
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
	__u32 ifa_flags = 0;
	unsigned int i, n = 0, found;
	double t0 = now(), secs, req = -1;
	int ret;

	if (dump_addrs(&l))
		return 1;
	found = l.n;
	order = calloc(found ? found : 1, sizeof(*order));
	if (!order) {
		perror("calloc");
		return 1;
	}

	if (!strcmp(mode, "bulk")) {
		/* one request: the address fields are not sent */
		static const struct addr none;

		order[n++] = &none;
		req = now();
		ret = run_requests(order, n, 1, RTM_DELADDR, NLM_F_BULK, 0,
				   false, &c);
		secs = now() - t0;
		req = now() - req;
		free(order);
		if (ret || dump_addrs(&l))
			return 1;
		c.ok = c.failed ? 0 : found - l.n;
		goto report;
	}
	if (!strcmp(mode, "secfirst")) {
		for (i = 0; i < found; i++)
			if (l.a[i].flags & IFA_F_SECONDARY)
				order[n++] = &l.a[i];
		for (i = 0; i < found; i++)
			if (!(l.a[i].flags & IFA_F_SECONDARY))
				order[n++] = &l.a[i];
	} else if (!strcmp(mode, "flagprim")) {
		for (i = 0; i < found; i++)
			if (!(l.a[i].flags & IFA_F_SECONDARY))
				order[n++] = &l.a[i];
		ifa_flags = IFA_F_FLUSH;
	} else {
		for (i = 0; i < found; i++)
			order[n++] = &l.a[i];
		if (!strcmp(mode, "flag"))
			ifa_flags = IFA_F_FLUSH;
	}

	ret = run_requests(order, n, batch, RTM_DELADDR, 0, ifa_flags, true,
			   &c);
	secs = now() - t0;
	free(order);
	if (ret || dump_addrs(&l))
		return 1;
report:
	/* bulk: "req", the request alone (its ack included): the upper
	 * bound of the time it holds the per-netns RTNL
	 */
	printf("found %u deleted %u gone %u failed %u left %u ",
	       found, c.ok, c.gone, c.failed, l.n);
	if (req >= 0)
		printf("req %.6f ", req);
	printf("secs %.6f\n", secs);
	free(l.a);
	return c.failed || l.n ? 1 : 0;
}

static int do_add(unsigned long count, const char *prefix,
		  unsigned long per_subnet, unsigned int batch)
{
	const struct addr **order;
	struct counts c = {};
	unsigned long hosts, subnets, i;
	__u32 base, mask;
	struct addr *addrs;
	unsigned int len;
	int ret;

	parse_prefix(prefix, 32, &base, &mask, &len);
	/* /32: one address per "subnet" (-s 1) */
	hosts = len == 32 ? 1 : (1ul << (32 - len)) - 2;
	if (!per_subnet)
		per_subnet = count;	/* all in the one subnet */
	subnets = (count + per_subnet - 1) / per_subnet;
	if (per_subnet > hosts ||
	    subnets > (1ull << len) - (base >> (32 - len))) {
		fprintf(stderr, "%lu addresses do not fit in %s\n", count,
			prefix);
		return 2;
	}

	addrs = calloc(count, sizeof(*addrs));
	order = calloc(count, sizeof(*order));
	if (!addrs || !order) {
		perror("calloc");
		return 1;
	}
	for (i = 0; i < count; i++) {
		__u32 a = base + ((i / per_subnet) << (32 - len)) +
			     i % per_subnet + 1;

		addrs[i].local = htonl(a);
		addrs[i].address = htonl(a);
		addrs[i].prefixlen = len;
		order[i] = &addrs[i];
	}

	ret = run_requests(order, count, batch, RTM_NEWADDR,
			   NLM_F_CREATE | NLM_F_EXCL, 0, false, &c);
	free(order);
	free(addrs);
	if (ret)
		return 1;
	printf("added %u failed %u\n", c.ok, c.failed);
	return c.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0, per_subnet = 0, batch = 64;
	const char *mode = "dump", *prefix = NULL;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "a:b:l:m:p:s:")) != -1) {
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
		case 'l':
			add_label = optarg;
			if (strlen(add_label) >= IFNAMSIZ)
				print_usage();
			break;
		case 'm':
			mode = optarg;
			if (strcmp(mode, "dump") && strcmp(mode, "secfirst") &&
			    strcmp(mode, "flag") && strcmp(mode, "flagprim") &&
			    strcmp(mode, "bulk"))
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
	if (optind != argc - 1 || (count && !prefix) || (!count && prefix) ||
	    (add_label && !count))
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

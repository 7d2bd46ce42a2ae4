// SPDX-License-Identifier: GPL-2.0
/*
 * churn_bench: the cost of adding and deleting one IPv4 address on a
 * device that already holds a few, over raw rtnetlink, for
 * scripts/bench/bench-flush.sh (its BENCH_SMALL measurements).  Where
 * flush_bench batches tens of thousands of requests, this tool sends one
 * request at a time, as a daemon that adds and removes a service address
 * does, so that the cost per request on a small device shows.
 *
 *   churn_bench -c REPS -p ADDR/LEN DEV
 *	REPS times: add ADDR/LEN to DEV (RTM_NEWADDR, NLM_F_CREATE |
 *	NLM_F_EXCL), read its ack, delete it again (RTM_DELADDR), read its
 *	ack; each request is acked before the next one is sent.  ADDR is
 *	taken as given (not masked to its prefix).  Prints the number of
 *	repetitions done, the failed requests and the seconds from the
 *	first request to the last ack (CLOCK_MONOTONIC: no process
 *	start-up); stops at the first failed request, exits 0 only if none
 *	failed.
 *
 * Its own program rather than a mode of flush_bench: the published
 * figures of flush_bench's runs hold only for the flush_bench.c they
 * were measured with (scripts/results.sh, same_inputs).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
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

#define RECV_LEN	(8 << 10)

/* One add or delete request: IFA_LOCAL and IFA_ADDRESS. */
struct req {
	struct nlmsghdr nlh;
	struct ifaddrmsg ifa;
	char attrs[2 * NLA_ALIGN(NLA_HDRLEN + 4)];
};

static int nl_fd;
static unsigned int nl_seq;
static union {
	struct nlmsghdr nlh;
	char buf[RECV_LEN];
} rbuf;

static void print_usage(void)
{
	fprintf(stderr, "usage: churn_bench -c REPS -p ADDR/LEN DEV\n");
	exit(2);
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl_fd < 0) {
		perror("socket(NETLINK_ROUTE)");
		return -1;
	}
	if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("bind(NETLINK_ROUTE)");
		return -1;
	}
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

static void put_u32(struct req *r, unsigned short type, __u32 v)
{
	size_t off = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *nla = (struct nlattr *)((char *)r + off);

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + sizeof(v);
	memcpy((char *)nla + NLA_HDRLEN, &v, sizeof(v));
	r->nlh.nlmsg_len = off + NLA_ALIGN(nla->nla_len);
}

static void build_req(struct req *r, int type, int flags, int ifindex,
		      __u32 addr, unsigned int plen)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->ifa.ifa_family = AF_INET;
	r->ifa.ifa_index = ifindex;
	r->ifa.ifa_prefixlen = plen;
	put_u32(r, IFA_LOCAL, addr);
	put_u32(r, IFA_ADDRESS, addr);
}

/*
 * Send @r with the next sequence number and wait for its ack: its error
 * (0 for success), or 1 if the socket failed.
 */
static int request(struct req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct iovec iov = { rbuf.buf, sizeof(rbuf.buf) };
	struct msghdr msg = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t ret;

	r->nlh.nlmsg_seq = ++nl_seq;
	do {
		ret = sendto(nl_fd, r, r->nlh.nlmsg_len, 0,
			     (struct sockaddr *)&sa, sizeof(sa));
	} while (ret < 0 && errno == EINTR);
	if (ret != (ssize_t)r->nlh.nlmsg_len) {
		perror("sendto(NETLINK_ROUTE)");
		return 1;
	}
	for (;;) {
		const struct nlmsghdr *nlh;
		int rem;

		do {
			ret = recvmsg(nl_fd, &msg, 0);
		} while (ret < 0 && errno == EINTR);
		if (ret < 0) {
			perror("recvmsg(NETLINK_ROUTE)");
			return 1;
		}
		if (msg.msg_flags & MSG_TRUNC) {
			fprintf(stderr, "netlink message truncated\n");
			return 1;
		}
		rem = ret;
		for (nlh = &rbuf.nlh; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			const struct nlmsgerr *e = NLMSG_DATA(nlh);
			const char *m;

			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    nlh->nlmsg_seq != nl_seq)
				continue;
			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
				fprintf(stderr, "short ack\n");
				return 1;
			}
			if (e->error) {
				m = ack_msg(nlh);
				fprintf(stderr, "%s: %s%s%s\n",
					r->nlh.nlmsg_type == RTM_NEWADDR ?
					"add" : "delete", strerror(-e->error),
					m ? ": " : "", m ? m : "");
			}
			return e->error;
		}
	}
}

/* ADDR/LEN (LEN 1..32), ADDR as given: network-order address, length. */
static void parse_addr(const char *arg, __u32 *addr, unsigned int *plen)
{
	char buf[INET_ADDRSTRLEN + 4];	/* ADDR/LEN */
	char *slash, *end;

	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf))
		print_usage();
	slash = strchr(buf, '/');
	if (!slash)
		print_usage();
	*slash++ = '\0';
	*plen = strtoul(slash, &end, 10);
	if (*end || *plen < 1 || *plen > 32 ||
	    inet_pton(AF_INET, buf, addr) != 1)
		print_usage();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long reps = 0, done = 0;
	const char *prefix = NULL;
	struct req add, del;
	unsigned int plen, failed = 0;
	__u32 addr;
	double t0, secs;
	char *end;
	int opt, ifindex;

	while ((opt = getopt(argc, argv, "c:p:")) != -1) {
		switch (opt) {
		case 'c':
			reps = strtoul(optarg, &end, 0);
			if (*end || !reps || reps > INT_MAX)
				print_usage();
			break;
		case 'p':
			prefix = optarg;
			break;
		default:
			print_usage();
		}
	}
	if (optind != argc - 1 || !reps || !prefix)
		print_usage();
	parse_addr(prefix, &addr, &plen);

	ifindex = if_nametoindex(argv[optind]);
	if (!ifindex) {
		fprintf(stderr, "%s: no such device\n", argv[optind]);
		return 2;
	}
	if (nl_open())
		return 1;

	build_req(&add, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, ifindex,
		  addr, plen);
	build_req(&del, RTM_DELADDR, 0, ifindex, addr, plen);
	t0 = now();
	while (done < reps) {
		if (request(&add)) {
			failed++;
			break;
		}
		if (request(&del)) {
			failed++;
			break;
		}
		done++;
	}
	secs = now() - t0;
	printf("reps %lu failed %u secs %.6f\n", done, failed, secs);
	return failed ? 1 : 0;
}

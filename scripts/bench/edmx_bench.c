// SPDX-License-Identifier: GPL-2.0
/*
 * Load generator for scripts/bench/bench-demux.sh (not a selftest).
 *
 *   edmx_bench fwd -s SRC_NETNS -d DST_NETNS -a DST_ADDR -i DST_DEV
 *                  [-t SECONDS] [-l PAYLOAD]
 *	UDP blaster: a connected UDP socket in SRC_NETNS sends to DST_ADDR
 *	(routed through whatever sits in between) in sendmmsg() bursts; the
 *	packets that reach DST_DEV in DST_NETNS are counted from its
 *	rx_packets (/proc/net/dev) and dropped there by an unread socket.
 *	Prints "sent N delivered M secs S pps P" (P = M / S).
 *
 *   edmx_bench rr -c CLIENT_NETNS -s SERVER_NETNS -a SERVER_ADDR
 *                 -P tcp|udp [-t SECONDS]
 *	Request-response: an established TCP or connected UDP client sends
 *	one byte and waits for the one-byte answer of a server process.
 *	Prints "transactions N secs S tps T".
 *
 * Namespaces are names in /run/netns or paths.  Each run first does a
 * short warm-up (neighbour resolution, cached dsts), then measures for
 * SECONDS of CLOCK_MONOTONIC time.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PORT		7777
#define BURST		64
#define WARMUP_NS	200000000LL

#ifndef __noreturn
#define __noreturn	__attribute__((__noreturn__))
#endif

static const char *prog;

static __noreturn void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(1);
}

static __noreturn void help(void)
{
	fprintf(stderr,
		"usage: %s fwd -s SRC_NETNS -d DST_NETNS -a DST_ADDR -i DST_DEV [-t SECONDS] [-l PAYLOAD]\n"
		"       %s rr -c CLIENT_NETNS -s SERVER_NETNS -a SERVER_ADDR -P tcp|udp [-t SECONDS]\n",
		prog, prog);
	exit(2);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static socklen_t parse_addr(const char *str, unsigned short port,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, str, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		return sizeof(*a4);
	}
	if (inet_pton(AF_INET6, str, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		return sizeof(*a6);
	}
	errno = EINVAL;
	die(str);
}

/* Any address of the family, port @port. */
static void any_addr(struct sockaddr_storage *ss, unsigned short port)
{
	int family = ss->ss_family;

	memset(ss, 0, sizeof(*ss));
	ss->ss_family = family;
	if (family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* rx_packets of @dev in the current netns. */
static unsigned long long rx_packets(const char *dev)
{
	unsigned long long bytes, pkts;
	char line[512], name[64];
	FILE *f;

	f = fopen("/proc/net/dev", "re");
	if (!f)
		die("/proc/net/dev");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %63[^:]: %llu %llu", name, &bytes,
			   &pkts) == 3 && !strcmp(name, dev)) {
			fclose(f);
			return pkts;
		}
	}
	fclose(f);
	errno = ENODEV;
	die(dev);
}

static int bench_fwd(const char *src_ns, const char *dst_ns,
		     const char *dst, const char *dev, double secs,
		     int payload)
{
	struct mmsghdr msgs[BURST];
	struct sockaddr_storage ss;
	struct iovec iov;
	unsigned long long rx0, rx1, sent = 0;
	long long t0, t1, end;
	int sink, tx, n, i;
	char buf[2048];
	socklen_t len;

	if (payload < 1 || payload > (int)sizeof(buf))
		help();
	memset(buf, 'x', sizeof(buf));
	len = parse_addr(dst, PORT, &ss);

	/* The sink: bound, never read; the excess is dropped there. */
	enter_netns(dst_ns);
	any_addr(&ss, PORT);
	sink = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sink < 0 || bind(sink, (struct sockaddr *)&ss, len))
		die("sink");

	enter_netns(src_ns);
	parse_addr(dst, PORT, &ss);
	tx = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (tx < 0 || connect(tx, (struct sockaddr *)&ss, len))
		die("connect");

	iov.iov_base = buf;
	iov.iov_len = payload;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BURST; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}

	/* Warm-up: neighbours, route caches. */
	end = now_ns() + WARMUP_NS;
	while (now_ns() < end)
		sendmmsg(tx, msgs, BURST, 0);

	enter_netns(dst_ns);
	rx0 = rx_packets(dev);
	t0 = now_ns();
	end = t0 + (long long)(secs * 1e9);
	do {
		n = sendmmsg(tx, msgs, BURST, 0);
		if (n > 0)
			sent += n;
		else if (errno != ENOBUFS && errno != EAGAIN)
			die("sendmmsg");
		t1 = now_ns();
	} while (t1 < end);
	rx1 = rx_packets(dev);

	printf("sent %llu delivered %llu secs %.3f pps %.0f\n", sent,
	       rx1 - rx0, (t1 - t0) / 1e9, (rx1 - rx0) / ((t1 - t0) / 1e9));
	close(tx);
	close(sink);
	return 0;
}

/* Both server sockets are connected: echo each byte back. */
static __noreturn void serve(int fd)
{
	char c;

	while (recv(fd, &c, 1, 0) == 1 && send(fd, &c, 1, 0) == 1)
		;
	_exit(0);
}

static int transact(int fd)
{
	char c = 'x';

	if (send(fd, &c, 1, 0) != 1 || recv(fd, &c, 1, 0) != 1)
		return -1;
	return 0;
}

static int bench_rr(const char *cli_ns, const char *srv_ns,
		    const char *srv, const char *proto, double secs)
{
	bool tcp = !strcmp(proto, "tcp");
	int type = tcp ? SOCK_STREAM : SOCK_DGRAM;
	struct timeval tmo = { .tv_sec = 5 };	/* a lost packet: fail */
	struct sockaddr_storage ss, cs;
	unsigned long long n = 0;
	long long t0, t1, end;
	int lfd, sfd, cfd, one = 1;
	socklen_t len, clen;
	pid_t pid;

	if (!tcp && strcmp(proto, "udp"))
		help();
	len = parse_addr(srv, PORT, &ss);

	enter_netns(srv_ns);
	lfd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
				  sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&ss, len))
		die("server");
	if (tcp && listen(lfd, 1))
		die("listen");

	enter_netns(cli_ns);
	cfd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	if (cfd < 0 || setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tmo,
				  sizeof(tmo)) ||
	    connect(cfd, (struct sockaddr *)&ss, len))
		die("connect");
	if (tcp) {
		setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		sfd = accept(lfd, NULL, NULL);
		if (sfd < 0)
			die("accept");
		setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else {
		/* Connected on both ends: both can be early demuxed. */
		clen = sizeof(cs);
		if (getsockname(cfd, (struct sockaddr *)&cs, &clen) ||
		    connect(lfd, (struct sockaddr *)&cs, clen))
			die("connect server");
		sfd = lfd;
	}

	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(cfd);
		if (lfd != sfd)
			close(lfd);
		serve(sfd);
	}
	if (sfd != lfd)
		close(sfd);
	close(lfd);

	end = now_ns() + WARMUP_NS;
	while (now_ns() < end)
		if (transact(cfd))
			die("warm-up");

	t0 = now_ns();
	end = t0 + (long long)(secs * 1e9);
	do {
		if (transact(cfd))
			die("transaction");
		n++;
		t1 = now_ns();
	} while (t1 < end);

	printf("transactions %llu secs %.3f tps %.0f\n", n, (t1 - t0) / 1e9,
	       n / ((t1 - t0) / 1e9));
	close(cfd);	/* TCP: EOF ends the server */
	if (!tcp)
		kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *a = NULL, *c = NULL, *s = NULL, *d = NULL, *i = NULL;
	const char *proto = "udp";
	double secs = 2;
	int opt, payload = 18;

	prog = argv[0];
	if (argc < 2)
		help();
	optind = 2;
	while ((opt = getopt(argc, argv, "a:c:d:i:l:P:s:t:")) != -1) {
		switch (opt) {
		case 'a':
			a = optarg;
			break;
		case 'c':
			c = optarg;
			break;
		case 'd':
			d = optarg;
			break;
		case 'i':
			i = optarg;
			break;
		case 'l':
			payload = atoi(optarg);
			break;
		case 'P':
			proto = optarg;
			break;
		case 's':
			s = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		default:
			help();
		}
	}
	if (secs <= 0 || !a || !s)
		help();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "fwd") && d && i)
		return bench_fwd(s, d, a, i, secs, payload);
	if (!strcmp(argv[1], "rr") && c)
		return bench_rr(c, s, a, proto, secs);
	help();
}

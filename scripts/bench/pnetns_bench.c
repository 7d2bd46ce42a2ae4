// SPDX-License-Identifier: GPL-2.0
/*
 * Helper of scripts/bench/bench-packet-netns.sh: send-only packet sockets in many
 * network namespaces, and a paced broadcast ARP sender.
 *
 *   pnetns_bench hold -k ka|p0 -n N [-f NSFMT]
 *	Open one send-only AF_PACKET socket in each of the namespaces
 *	NSFMT % 1 .. NSFMT % N (default "pnb-%d", from /run/netns), the way
 *	keepalived 2.2.7 opens its gratuitous ARP socket (ka:
 *	socket(PF_PACKET, SOCK_RAW, htons(ETH_P_ARP)), not bound, with the
 *	classic BPF filter "ret #0"; vrrp_arp.c gratuitous_arp_init() and
 *	vrrp_if.c if_setsockopt_no_receive()) or with protocol 0 (p0: never
 *	hooked into receive).  Prints "ready N", then waits for SIGTERM or
 *	SIGINT and prints the sum of the sockets' PACKET_STATISTICS.
 *
 *   pnetns_bench send -n N [-i IFFMT] -r RATE -e EVENTS
 *	Send EVENTS broadcast ARP requests at RATE per second (absolute
 *	clock_nanosleep pacing on CLOCK_MONOTONIC), each out of the
 *	interfaces IFFMT % 1 .. IFFMT % N (default "pnbs%d") from a protocol-0
 *	packet socket.  Prints what was offered, the time spent inside the
 *	send calls (veth delivers in the sender's softirq, so that includes
 *	the receivers' work), the elapsed time and the achieved rate.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pnetns_bench hold -k ka|p0 -n N [-f NSFMT]\n"
		"       pnetns_bench send -n N [-i IFFMT] -r RATE -e EVENTS\n");
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The socket keepalived 2.2.7 uses for gratuitous ARP, or protocol 0. */
static int packet_socket(int keepalived)
{
	struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { .len = 1, .filter = code };
	int fd;

	fd = socket(PF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    keepalived ? htons(ETH_P_ARP) : 0);
	if (fd < 0)
		die("socket");
	if (keepalived &&
	    setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		die("SO_ATTACH_FILTER");
	return fd;
}

static int hold(int keepalived, int n, const char *nsfmt)
{
	unsigned long long packets = 0, drops = 0;
	struct tpacket_stats st;
	char path[256], name[128];
	int *fds, self, i;

	fds = calloc(n, sizeof(*fds));
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (!fds || self < 0)
		die("setup");
	for (i = 0; i < n; i++) {
		int nsfd;

		snprintf(name, sizeof(name), nsfmt, i + 1);
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0)
			die(path);
		if (setns(nsfd, CLONE_NEWNET))
			die("setns");
		close(nsfd);
		fds[i] = packet_socket(keepalived);
	}
	if (setns(self, CLONE_NEWNET))
		die("setns back");
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready %d\n", n);
	fflush(stdout);
	while (!stop)
		pause();
	for (i = 0; i < n; i++) {
		socklen_t len = sizeof(st);

		if (getsockopt(fds[i], SOL_PACKET, PACKET_STATISTICS, &st, &len))
			die("PACKET_STATISTICS");
		packets += st.tp_packets;
		drops += st.tp_drops;
		close(fds[i]);
	}
	printf("sockets %d tp_packets %llu tp_drops %llu\n", n, packets, drops);
	free(fds);
	return 0;
}

/* A broadcast ARP request for an address nobody here owns. */
static void arp_frame(unsigned char *f)
{
	static const unsigned char mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0xfe, 1 };
	unsigned char *a = f + ETH_HLEN;

	memset(f, 0, ETH_HLEN + 28);
	memset(f, 0xff, ETH_ALEN);
	memcpy(f + ETH_ALEN, mac, ETH_ALEN);
	f[12] = ETH_P_ARP >> 8;
	f[13] = ETH_P_ARP & 0xff;
	a[1] = 1;		/* ar_hrd: Ethernet */
	a[2] = 0x08;		/* ar_pro: IPv4 */
	a[4] = ETH_ALEN;
	a[5] = 4;
	a[7] = 1;		/* ar_op: request */
	memcpy(a + 8, mac, ETH_ALEN);
	memcpy(a + 14, (unsigned char[]){ 10, 254, 0, 1 }, 4);
	memcpy(a + 24, (unsigned char[]){ 10, 253, 0, 1 }, 4);
}

static int send_arps(int n, const char *iffmt, double rate, long events)
{
	uint64_t period = 1e9 / rate, t0, t, busy = 0, end;
	unsigned char frame[ETH_HLEN + 28];
	struct sockaddr_ll *sll;
	long ev, late = 0, errors = 0;
	char name[IF_NAMESIZE + 16];
	int fd, i;

	sll = calloc(n, sizeof(*sll));
	if (!sll)
		die("calloc");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), iffmt, i + 1);
		sll[i].sll_family = AF_PACKET;
		sll[i].sll_protocol = htons(ETH_P_ARP);
		sll[i].sll_ifindex = if_nametoindex(name);
		sll[i].sll_halen = ETH_ALEN;
		memset(sll[i].sll_addr, 0xff, ETH_ALEN);
		if (!sll[i].sll_ifindex)
			die(name);
	}
	fd = packet_socket(0);
	arp_frame(frame);

	t0 = now_ns();
	for (ev = 0; ev < events; ev++) {
		struct timespec ts;
		uint64_t due = t0 + ev * period;

		t = now_ns();
		if (t < due) {
			ts.tv_sec = due / 1000000000ull;
			ts.tv_nsec = due % 1000000000ull;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &ts, NULL) == EINTR)
				;
			t = now_ns();
		} else if (t - due > period) {
			late++;
		}
		for (i = 0; i < n; i++)
			if (sendto(fd, frame, sizeof(frame), 0,
				   (struct sockaddr *)&sll[i],
				   sizeof(sll[i])) != sizeof(frame))
				errors++;
		busy += now_ns() - t;
	}
	/* Kept up: the run lasts the offered EVENTS / RATE seconds. */
	end = now_ns();
	if (end - t0 < events * period)
		end = t0 + events * period;
	printf("events %ld frames %ld offered %.0f/s elapsed_ns %llu busy_ns %llu achieved %.1f/s late %ld send_errors %ld\n",
	       events, events * n, rate, (unsigned long long)(end - t0),
	       (unsigned long long)busy, events * 1e9 / (end - t0), late,
	       errors);
	close(fd);
	free(sll);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *nsfmt = "pnb-%d", *iffmt = "pnbs%d", *kind = NULL;
	double rate = 0;
	long events = 0;
	int n = 0, c;

	if (argc < 2)
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "k:n:f:i:r:e:")) != -1) {
		switch (c) {
		case 'k': kind = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'f': nsfmt = optarg; break;
		case 'i': iffmt = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'e': events = atol(optarg); break;
		default: usage();
		}
	}
	if (n <= 0)
		usage();
	if (!strcmp(argv[1], "hold") && kind &&
	    (!strcmp(kind, "ka") || !strcmp(kind, "p0")))
		return hold(!strcmp(kind, "ka"), n, nsfmt);
	if (!strcmp(argv[1], "send") && rate > 0 && events > 0)
		return send_arps(n, iffmt, rate, events);
	usage();
	return 2;
}

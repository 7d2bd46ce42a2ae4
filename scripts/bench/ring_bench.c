// SPDX-License-Identifier: GPL-2.0
/*
 * ring_bench: AF_PACKET receive paths under a fixed offered load.
 *
 * A child process pinned to one CPU sends frames of a local experimental
 * EtherType out of one end of a veth pair at a fixed rate (paced
 * sendmmsg()); the parent, pinned to another CPU, receives them on the
 * other end with one of
 *
 *   recvfrom  poll(), then recvfrom(MSG_DONTWAIT) until EAGAIN
 *   v2        poll(), then every TPACKET_V2 frame ready
 *   v3        poll(), then every TPACKET_V3 block ready
 *
 * and reports delivered packets per second, packets per poll() wakeup,
 * socket drops (PACKET_STATISTICS tp_drops), backlog drops before any
 * packet socket (/proc/net/softnet_stat) and the receiver's CPU time.
 *
 * The receive buffer of the recvfrom socket is set to the ring size, so
 * the three paths have the same memory.  The end of a run is detected
 * with a fence frame of another EtherType sent by the same child after
 * its last frame: once it reached its witness socket, PACKET_STATISTICS
 * is final, and the receiver drains what is left.
 *
 *   ring_bench -i RXDEV -o TXDEV [-r PPS,PPS...] [-d SECONDS] [-l LEN]
 *              [-b BLOCK_SIZE] [-n BLOCK_NR] [-f FRAME_SIZE] [-t TOV_MS]
 *              [-m recvfrom,v2,v3]
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROTO_DATA	0x88b5
#define PROTO_FENCE	0x88b7
#define MAX_RATES	16
#define SEND_BATCH	32

enum mode { M_RECVFROM, M_V2, M_V3, M_NR };

static const char * const mode_name[M_NR] = { "recvfrom", "v2", "v3" };

struct cfg {
	int ifindex_rx, ifindex_tx;
	unsigned char mac_rx[ETH_ALEN], mac_tx[ETH_ALEN];
	unsigned long rates[MAX_RATES];
	int nr_rates;
	double duration;
	unsigned int len;		/* frame length, with Ethernet header */
	unsigned int block_size, block_nr, frame_size, tov;
	bool modes[M_NR];
	int cpu_tx, cpu_rx;
};

struct result {
	unsigned long long delivered, drops, backlog_drops, wakeups;
	double secs, cpu_secs;
};

/* What the sender reports: frames sent and when (CLOCK_MONOTONIC). */
struct sent {
	unsigned long long frames;
	double start, end;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_time(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* Packets dropped by the backlog of any CPU (softnet_stat column 2). */
static unsigned long long backlog_drops(void)
{
	unsigned long long sum = 0;
	unsigned int processed, dropped;
	char line[512];
	FILE *f;

	f = fopen("/proc/net/softnet_stat", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	fclose(f);
	return sum;
}

static void get_mac(const char *name, unsigned char *mac)
{
	struct ifreq ifr;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		die(name);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	close(fd);
}

static int pkt_socket(int type, int proto, int ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = ifindex,
	};
	int fd;

	fd = socket(AF_PACKET, type, htons(proto));
	if (fd < 0)
		die("socket(AF_PACKET)");
	if (ifindex && bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind");
	return fd;
}

/* The child: @rate frames per second for @secs, then a fence frame. */
static void sender(const struct cfg *c, unsigned long rate, int report)
{
	unsigned char frame[SEND_BATCH][ETH_FRAME_LEN];
	struct mmsghdr msg[SEND_BATCH];
	struct iovec iov[SEND_BATCH];
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = c->ifindex_tx,
		.sll_halen = ETH_ALEN,
	};
	struct sent rep = { 0 };
	unsigned long long target;
	struct ethhdr *eth;
	double t;
	int fd, i, n;

	pin(c->cpu_tx);
	fd = pkt_socket(SOCK_RAW, 0, 0);
	memset(frame, 0, sizeof(frame));
	memset(msg, 0, sizeof(msg));
	for (i = 0; i < SEND_BATCH; i++) {
		eth = (struct ethhdr *)frame[i];
		memcpy(eth->h_dest, c->mac_rx, ETH_ALEN);
		memcpy(eth->h_source, c->mac_tx, ETH_ALEN);
		eth->h_proto = htons(PROTO_DATA);
		iov[i].iov_base = frame[i];
		iov[i].iov_len = c->len;
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
		msg[i].msg_hdr.msg_name = &sll;
		msg[i].msg_hdr.msg_namelen = sizeof(sll);
	}

	rep.start = now();
	for (;;) {
		t = now() - rep.start;
		if (t >= c->duration)
			break;
		target = (unsigned long long)(t * rate);
		if (target <= rep.frames) {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
			continue;
		}
		n = target - rep.frames;
		if (n > SEND_BATCH)
			n = SEND_BATCH;
		n = sendmmsg(fd, msg, n, 0);
		if (n < 0) {
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			die("sendmmsg");
		}
		rep.frames += n;
	}
	rep.end = now();

	eth = (struct ethhdr *)frame[0];
	eth->h_proto = htons(PROTO_FENCE);
	if (sendto(fd, frame[0], c->len, 0, (struct sockaddr *)&sll,
		   sizeof(sll)) < 0)
		die("sendto fence");
	if (write(report, &rep, sizeof(rep)) != sizeof(rep))
		die("write");
	_exit(0);
}

struct rx {
	enum mode mode;
	int fd;
	unsigned char *map;
	size_t map_len;
	unsigned int next;	/* next V2 frame or V3 block */
	unsigned int frame_nr;
	const struct cfg *c;
};

/* Ring (or receive buffer) first, then bind(): hooked with it in place. */
static void rx_setup(struct rx *rx, const struct cfg *c, enum mode mode)
{
	int ver = mode == M_V3 ? TPACKET_V3 : TPACKET_V2;
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(PROTO_DATA),
		.sll_ifindex = c->ifindex_rx,
	};
	struct tpacket_req3 req;
	int size;

	memset(rx, 0, sizeof(*rx));
	rx->mode = mode;
	rx->c = c;
	rx->map_len = (size_t)c->block_size * c->block_nr;
	rx->fd = pkt_socket(SOCK_RAW, 0, 0);

	if (mode == M_RECVFROM) {
		size = rx->map_len;
		if (setsockopt(rx->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
			       sizeof(size)))
			die("SO_RCVBUFFORCE");
	} else {
		if (setsockopt(rx->fd, SOL_PACKET, PACKET_VERSION, &ver,
			       sizeof(ver)))
			die("PACKET_VERSION");
		memset(&req, 0, sizeof(req));
		req.tp_block_size = c->block_size;
		req.tp_block_nr = c->block_nr;
		req.tp_frame_size = c->frame_size;
		req.tp_frame_nr = c->block_size / c->frame_size * c->block_nr;
		req.tp_retire_blk_tov = c->tov;
		rx->frame_nr = req.tp_frame_nr;
		if (setsockopt(rx->fd, SOL_PACKET, PACKET_RX_RING, &req,
			       mode == M_V3 ? sizeof(req) :
					      sizeof(struct tpacket_req)))
			die("PACKET_RX_RING");
		rx->map = mmap(NULL, rx->map_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, rx->fd, 0);
		if (rx->map == MAP_FAILED)
			die("mmap");
	}
	if (bind(rx->fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind");
}

static void rx_close(struct rx *rx)
{
	if (rx->map)
		munmap(rx->map, rx->map_len);
	close(rx->fd);
}

/* Everything ready now; returns the number of frames. */
static unsigned long long rx_drain(struct rx *rx)
{
	const struct cfg *c = rx->c;
	unsigned long long n = 0;
	char buf[ETH_FRAME_LEN];

	switch (rx->mode) {
	case M_RECVFROM:
		while (recv(rx->fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			n++;
		if (errno != EAGAIN)
			die("recv");
		break;
	case M_V2:
		for (;;) {
			unsigned int fpb = c->block_size / c->frame_size;
			struct tpacket2_hdr *h;

			h = (void *)(rx->map +
				     (size_t)(rx->next / fpb) * c->block_size +
				     (rx->next % fpb) * c->frame_size);
			if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
			      TP_STATUS_USER))
				break;
			__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
					 __ATOMIC_RELEASE);
			rx->next = (rx->next + 1) % rx->frame_nr;
			n++;
		}
		break;
	case M_V3:
		for (;;) {
			struct tpacket_block_desc *bd;

			bd = (void *)(rx->map +
				      (size_t)rx->next * c->block_size);
			if (!(__atomic_load_n(&bd->hdr.bh1.block_status,
					      __ATOMIC_ACQUIRE) &
			      TP_STATUS_USER))
				break;
			n += bd->hdr.bh1.num_pkts;
			__atomic_store_n(&bd->hdr.bh1.block_status,
					 TP_STATUS_KERNEL, __ATOMIC_RELEASE);
			rx->next = (rx->next + 1) % c->block_nr;
		}
		break;
	default:
		break;
	}
	return n;
}

static double child_cpu_time(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void run(const struct cfg *c, unsigned long rate, enum mode mode,
		struct result *res)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);
	struct pollfd pfd[2];
	unsigned long long bd0;
	double fence_time, cpu0, ccpu0, end;
	struct sent sent;
	int report[2], status;
	bool fenced = false;
	struct rx rx;
	pid_t pid;
	char buf[ETH_FRAME_LEN];

	memset(res, 0, sizeof(*res));
	rx_setup(&rx, c, mode);
	pfd[0].fd = rx.fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = pkt_socket(SOCK_DGRAM, PROTO_FENCE, c->ifindex_rx);
	pfd[1].events = POLLIN;
	/* start from clean counters */
	getsockopt(rx.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len);
	if (pipe(report))
		die("pipe");

	bd0 = backlog_drops();
	cpu0 = cpu_time();
	ccpu0 = child_cpu_time();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		sender(c, rate, report[1]);

	while (!fenced) {
		if (poll(pfd, 2, 1000) < 0 && errno != EINTR)
			die("poll");
		if (pfd[0].revents & POLLIN) {
			res->wakeups++;
			res->delivered += rx_drain(&rx);
		}
		if (pfd[1].revents & POLLIN)
			fenced = recv(pfd[1].fd, buf, sizeof(buf),
				      MSG_DONTWAIT) >= 0;
	}
	fence_time = now();

	/* final counters; then what is still in the ring (V3: last block) */
	len = sizeof(st);
	if (getsockopt(rx.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		die("PACKET_STATISTICS");
	res->drops = st.tp_drops;
	end = now() + 5;
	while (res->delivered < st.tp_packets - st.tp_drops && now() < end) {
		if (poll(pfd, 1, 100) > 0 && (pfd[0].revents & POLLIN)) {
			res->wakeups++;
			res->delivered += rx_drain(&rx);
		}
	}
	res->cpu_secs = cpu_time() - cpu0;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("sender");
	if (read(report[0], &sent, sizeof(sent)) != sizeof(sent))
		die("read");
	res->backlog_drops = backlog_drops() - bd0;
	/* from the first frame sent to the fence received */
	res->secs = fence_time - sent.start;
	/* the sender's CPU also runs the softirq that feeds the sockets */
	ccpu0 = child_cpu_time() - ccpu0;
	printf("%9lu  %-8s  %9llu  %9.0f  %9llu  %9.0f  %8llu  %8llu  %8llu  ",
	       rate, mode_name[mode], sent.frames,
	       sent.frames / (sent.end - sent.start),
	       res->delivered, res->delivered / res->secs, res->drops,
	       res->backlog_drops, res->wakeups);
	printf("%8.1f  %5.1f  %5.1f\n",
	       res->wakeups ? (double)res->delivered / res->wakeups : 0.0,
	       100 * res->cpu_secs / res->secs, 100 * ccpu0 / res->secs);
	fflush(stdout);

	close(report[0]);
	close(report[1]);
	close(pfd[1].fd);
	rx_close(&rx);
}

static void help(const char *prog)
{
	fprintf(stderr,
		"usage: %s -i RXDEV -o TXDEV [-r PPS[,PPS...]] [-d SECONDS]\n"
		"	[-l FRAME_LEN] [-b BLOCK_SIZE] [-n BLOCK_NR]\n"
		"	[-f FRAME_SIZE] [-t TOV_MS] [-m recvfrom,v2,v3]\n",
		prog);
	exit(2);
}

static void parse_list(const char *arg, struct cfg *c, bool rates)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int m;

	if (!dup)
		die("strdup");
	if (!rates)
		memset(c->modes, 0, sizeof(c->modes));
	else
		c->nr_rates = 0;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (rates) {
			if (c->nr_rates == MAX_RATES)
				help("ring_bench");
			c->rates[c->nr_rates++] = strtoul(tok, NULL, 0);
			continue;
		}
		for (m = 0; m < M_NR; m++)
			if (!strcmp(tok, mode_name[m]))
				break;
		if (m == M_NR)
			help("ring_bench");
		c->modes[m] = true;
	}
	free(dup);
}

int main(int argc, char **argv)
{
	const char *rxdev = NULL, *txdev = NULL;
	struct cfg c = {
		.rates = { 10000, 50000, 200000 },
		.nr_rates = 3,
		.duration = 2,
		.len = 128,
		.block_size = 1 << 16,
		.block_nr = 32,
		.frame_size = 0,	/* fit the frames */
		.tov = 10,
		.modes = { true, true, true },
	};
	struct result res;
	int opt, r, m;

	while ((opt = getopt(argc, argv, "i:o:r:d:l:b:n:f:t:m:")) != -1) {
		switch (opt) {
		case 'i':
			rxdev = optarg;
			break;
		case 'o':
			txdev = optarg;
			break;
		case 'r':
			parse_list(optarg, &c, true);
			break;
		case 'd':
			c.duration = atof(optarg);
			break;
		case 'l':
			c.len = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			c.block_size = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			c.block_nr = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			c.frame_size = strtoul(optarg, NULL, 0);
			break;
		case 't':
			c.tov = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			parse_list(optarg, &c, false);
			break;
		default:
			help(argv[0]);
		}
	}
	if (!rxdev || !txdev || c.duration <= 0 || c.len < ETH_ZLEN ||
	    c.len > ETH_FRAME_LEN)
		help(argv[0]);
	/* V2 frame: header, sockaddr_ll, mac header padded to 16, frame */
	if (!c.frame_size)
		c.frame_size = TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + c.len;
	c.frame_size = TPACKET_ALIGN(c.frame_size);
	if (c.frame_size > c.block_size)
		help(argv[0]);

	c.ifindex_rx = if_nametoindex(rxdev);
	c.ifindex_tx = if_nametoindex(txdev);
	if (!c.ifindex_rx || !c.ifindex_tx)
		die("if_nametoindex");
	get_mac(rxdev, c.mac_rx);
	get_mac(txdev, c.mac_tx);
	c.cpu_tx = 0;
	c.cpu_rx = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	pin(c.cpu_rx);

	printf("# %u-byte frames %s -> %s, %.1f s per run, sender on CPU %d,\n"
	       "# receiver on CPU %d; rings and rcvbuf %u x %u bytes, V2 frames %u (%u slots), V3 tov %u ms\n",
	       c.len, txdev, rxdev, c.duration, c.cpu_tx, c.cpu_rx,
	       c.block_nr, c.block_size, c.frame_size,
	       c.block_size / c.frame_size * c.block_nr, c.tov);
	printf("# %7s  %-8s  %9s  %9s  %9s  %9s  %8s  %8s  %8s  ",
	       "offered", "mode", "sent", "sent/s", "delivered",
	       "deliv/s", "sockdrop", "blogdrop", "wakeups");
	printf("%8s  %5s  %5s\n", "pkt/wake", "rxcpu", "txcpu");
	for (r = 0; r < c.nr_rates; r++)
		for (m = 0; m < M_NR; m++)
			if (c.modes[m])
				run(&c, c.rates[r], m, &res);
	return 0;
}

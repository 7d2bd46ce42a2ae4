// SPDX-License-Identifier: GPL-2.0
/*
 * AF_PACKET: the order of bind() and PACKET_RX_RING.
 *
 * packet_set_ring() takes a running socket off the network while it swaps
 * the ring and hooks it again afterwards; packet_do_bind() hooks a socket
 * whose device or protocol changes.  Whatever the order of socket(), bind()
 * and the ring setup, the socket must be hooked exactly when it has a
 * protocol (from socket() or from bind()), and receive the frames of that
 * protocol on its device (any device when unbound): into the ring if it has
 * one, into its receive queue otherwise.  A socket created with protocol 0
 * and never bound with one (the send-only socket of packet(7) that
 * keepalived uses) is never hooked.
 *
 * Each variant is a row of steps on one socket.  After every step the test
 * checks the socket's hook in /proc/net/packet (protocol, ifindex, R) and
 * its PACKET_STATISTICS against a model of the socket, and at the end the
 * frames found in the ring and in the receive queue.
 *
 * What other tests cover is left out: psock_tpacket covers the ring
 * layouts (TPACKET_V1/V2/V3, SOCK_RAW, ring before bind()), psock_fanout a
 * TPACKET_V2 ring set up after bind() in a fanout group, psock_snd sending
 * from a protocol 0 socket and PACKET_STATISTICS (drops, clear on read).
 * Here: TPACKET_V2 and SOCK_DGRAM only, the payload is a sequence number.
 *
 * Run in a netns with a veth pair named by $PSOCK_IF1 and $PSOCK_IF2, see
 * psock_ring_bind.sh.  Frames use IEEE local experimental EtherTypes, so no
 * other traffic is counted.  No sleeps: every batch of frames is followed
 * by a fence frame of another EtherType to a witness socket on the same
 * device.  The sender stays on one CPU, so the receiving device processes
 * the frames in order from that CPU's backlog, each through all its packet
 * sockets before the next: once the fence has arrived, every frame sent
 * before it has been delivered, and the counters are final.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define PROTO_A		0x88b5	/* IEEE local experimental EtherType 1 */
#define PROTO_B		0x88b6	/* IEEE local experimental EtherType 2 */
#define PROTO_FENCE	0x88b7	/* no handler in the kernel either */

#define BATCH		4	/* frames per send step */
#define MAX_STEPS	8
#define MAX_FRAMES	(MAX_STEPS * BATCH)
#define FRAME_SIZE	512
#define RING_BLOCKS	4	/* of a page: at least MAX_FRAMES frames */
#define FENCE_TIMEOUT_S	10	/* safety net only */

/* The ring holds every frame of a case, with pages of 4 KiB or more. */
static_assert(RING_BLOCKS * (4096 / FRAME_SIZE) >= MAX_FRAMES,
	      "ring too small for MAX_FRAMES frames");

enum op { OP_END, OP_RING, OP_UNRING, OP_TX_RING, OP_BIND, OP_SEND };

/* @dev: 1 or 2, the device a frame is received on (BIND: 0 is any) */
struct step {
	enum op op;
	int dev;
	__u16 proto;
};

#define RING			{ OP_RING, 0, 0 }
#define UNRING			{ OP_UNRING, 0, 0 }
#define TX_RING			{ OP_TX_RING, 0, 0 }
#define BIND(dev, proto)	{ OP_BIND, dev, proto }
#define SEND(dev, proto)	{ OP_SEND, dev, proto }

struct ctx {
	int ifindex[3];		/* [0]: any device */
	int tx;			/* sends every frame: protocol 0, unbound */
	int fence[3];		/* PROTO_FENCE witnesses on devices 1 and 2 */
	__u32 seq;
	int fd;			/* the socket under test */
	struct tpacket_req req;
	__u8 *map;
	unsigned int next;	/* next ring frame to read */

	/* the model of the socket */
	int dev;
	__u16 proto;		/* 0: not hooked */
	bool ring;
	unsigned int purged;	/* frames queued before a ring */
	__u32 was_queued[MAX_FRAMES];	/* and which */
	__u32 in_ring[MAX_FRAMES];
	__u32 in_queue[MAX_FRAMES];
	int nring;
	int nqueue;
};

FIXTURE(ring_bind)
{
	struct ctx c;
};

FIXTURE_VARIANT(ring_bind)
{
	__u16 sock_proto;	/* socket(AF_PACKET, SOCK_DGRAM, sock_proto) */
	struct step steps[MAX_STEPS];
};

/* Hooked on every device from socket() on; the ring re-hooks it. */
FIXTURE_VARIANT_ADD(ring_bind, ring_then_bind)
{
	PROTO_A, { RING, SEND(1, PROTO_A), SEND(2, PROTO_A),
		   BIND(1, PROTO_A), SEND(1, PROTO_A), SEND(2, PROTO_A) },
};

/* What libpcap does: not hooked until bind(). */
FIXTURE_VARIANT_ADD(ring_bind, ring_then_bind_proto0)
{
	0, { RING, SEND(1, PROTO_A), BIND(1, PROTO_A), SEND(1, PROTO_A) },
};

FIXTURE_VARIANT_ADD(ring_bind, bind_then_ring)
{
	PROTO_A, { BIND(1, PROTO_A), RING, SEND(1, PROTO_A) },
};

/* bind() with protocol 0 keeps the protocol of socket(). */
FIXTURE_VARIANT_ADD(ring_bind, bind_dev_then_ring)
{
	PROTO_A, { BIND(1, 0), RING, SEND(1, PROTO_A), SEND(2, PROTO_A) },
};

FIXTURE_VARIANT_ADD(ring_bind, rebind_dev)
{
	PROTO_A, { BIND(1, PROTO_A), RING, SEND(1, PROTO_A),
		   BIND(2, PROTO_A), SEND(2, PROTO_A), SEND(1, PROTO_A) },
};

FIXTURE_VARIANT_ADD(ring_bind, rebind_proto)
{
	PROTO_A, { BIND(1, PROTO_A), RING, SEND(1, PROTO_A),
		   BIND(1, PROTO_B), SEND(1, PROTO_B), SEND(1, PROTO_A) },
};

FIXTURE_VARIANT_ADD(ring_bind, queue_then_ring)
{
	PROTO_A, { BIND(1, PROTO_A), SEND(1, PROTO_A), RING,
		   SEND(1, PROTO_A) },
};

/* A tx ring re-hooks the socket too; it receives into its queue. */
FIXTURE_VARIANT_ADD(ring_bind, tx_ring_after_bind)
{
	PROTO_A, { BIND(1, PROTO_A), TX_RING, SEND(1, PROTO_A) },
};

/* Tearing the ring down re-hooks the socket: back to the queue. */
FIXTURE_VARIANT_ADD(ring_bind, unring_after_bind)
{
	0, { RING, BIND(1, PROTO_A), SEND(1, PROTO_A), UNRING,
	     SEND(1, PROTO_A) },
};

/* Protocol 0 and never bound with a protocol: never hooked. */
FIXTURE_VARIANT_ADD(ring_bind, proto0_send_only)
{
	0, { SEND(1, PROTO_A), SEND(2, PROTO_B) },
};

FIXTURE_VARIANT_ADD(ring_bind, proto0_bind_dev_ring)
{
	0, { BIND(1, 0), RING, SEND(1, PROTO_A), SEND(1, PROTO_B) },
};

static int pkt_socket(__u16 proto, int dev_ifindex)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = dev_ifindex,
	};
	int fd = socket(AF_PACKET, SOCK_DGRAM, htons(proto));

	if (fd >= 0 && dev_ifindex &&
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(ring_bind)
{
	struct timeval tv = { .tv_sec = FENCE_TIMEOUT_S };
	struct ctx *c = &self->c;
	const char *name;
	cpu_set_t cpus;
	int dev, cpu;

	c->tx = -1;
	c->fd = -1;
	c->fence[1] = -1;
	c->fence[2] = -1;
	c->map = MAP_FAILED;
	for (dev = 1; dev <= 2; dev++) {
		name = getenv(dev == 1 ? "PSOCK_IF1" : "PSOCK_IF2");
		if (!name)
			SKIP(return, "no veth pair: run psock_ring_bind.sh");
		c->ifindex[dev] = if_nametoindex(name);
		ASSERT_NE(0, c->ifindex[dev]) TH_LOG("no device %s", name);
	}

	/* One CPU, one backlog: frames are received in sending order. */
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	c->tx = pkt_socket(0, 0);
	ASSERT_LE(0, c->tx) TH_LOG("socket: %s", strerror(errno));
	for (dev = 1; dev <= 2; dev++) {
		c->fence[dev] = pkt_socket(PROTO_FENCE, c->ifindex[dev]);
		ASSERT_LE(0, c->fence[dev]) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, setsockopt(c->fence[dev], SOL_SOCKET,
					SO_RCVTIMEO, &tv, sizeof(tv)));
	}

	c->fd = pkt_socket(variant->sock_proto, 0);
	ASSERT_LE(0, c->fd) TH_LOG("socket: %s", strerror(errno));
	ASSERT_EQ(0, setsockopt(c->fd, SOL_PACKET, PACKET_VERSION,
				&(int){ TPACKET_V2 }, sizeof(int)));
	c->proto = variant->sock_proto;

	c->req.tp_block_size = getpagesize();
	c->req.tp_block_nr = RING_BLOCKS;
	c->req.tp_frame_size = FRAME_SIZE;
	c->req.tp_frame_nr = RING_BLOCKS * (getpagesize() / FRAME_SIZE);
}

FIXTURE_TEARDOWN(ring_bind)
{
	struct ctx *c = &self->c;

	if (c->map != MAP_FAILED)
		munmap(c->map, c->req.tp_block_size * RING_BLOCKS);
	close(c->fd);
	close(c->fence[2]);
	close(c->fence[1]);
	close(c->tx);
}

/* Send a frame received on device @dev: out of the other end of the veth. */
static void send_frame(struct __test_metadata *_metadata, struct ctx *c,
		       int dev, __u16 proto, __u32 seq)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = c->ifindex[3 - dev],
		.sll_halen = ETH_ALEN,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	__be32 data = htonl(seq);

	ASSERT_EQ((ssize_t)sizeof(data),
		  sendto(c->tx, &data, sizeof(data), 0,
			 (struct sockaddr *)&sll, sizeof(sll)))
		TH_LOG("sendto: %s", strerror(errno));
}

/* Returns when every frame sent so far to device @dev was received. */
static void fence_dev(struct __test_metadata *_metadata, struct ctx *c,
		      int dev)
{
	__u32 seq = c->seq++;
	__be32 data;

	send_frame(_metadata, c, dev, PROTO_FENCE, seq);
	ASSERT_EQ((ssize_t)sizeof(data),
		  recv(c->fence[dev], &data, sizeof(data), 0))
		TH_LOG("fence frame to device %d: %s", dev, strerror(errno));
	ASSERT_EQ(seq, ntohl(data));
}

/* The socket's line in /proc/net/packet matches the model. */
static void check_hook(struct __test_metadata *_metadata, struct ctx *c)
{
	unsigned long inode = 0;
	int ifindex, running;
	unsigned int proto;
	struct stat st;
	char line[256];
	FILE *f;

	ASSERT_EQ(0, fstat(c->fd, &st));
	f = fopen("/proc/net/packet", "r");
	ASSERT_TRUE(!!f);
	while (inode != st.st_ino && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*d %*d %x %d %d %*u %*u %lu", &proto,
			   &ifindex, &running, &inode) != 4)
			inode = 0;
	}
	fclose(f);
	ASSERT_EQ(st.st_ino, inode) TH_LOG("socket not in /proc/net/packet");
	EXPECT_EQ(c->proto, proto);
	EXPECT_EQ(c->ifindex[c->dev], ifindex);
	ASSERT_EQ(!!c->proto, running) TH_LOG("R (hooked) in /proc/net/packet");
}

/*
 * PACKET_STATISTICS (cleared on read) counted @packets frames since the last
 * step.  Frames queued before the ring and thrown away by packet_set_ring()
 * may be reported as drops or not (see packet_mmap.rst): both pass.
 */
static void check_stats(struct __test_metadata *_metadata, int fd,
			unsigned int packets, unsigned int purged)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	ASSERT_EQ(0, getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len));
	if (purged && st.tp_drops == purged)
		packets += purged;	/* tp_packets includes tp_drops */
	else
		EXPECT_EQ(0U, st.tp_drops);
	ASSERT_EQ(packets, st.tp_packets);
}

/* The ring holds exactly the frames of the model, in order. */
static void check_ring(struct __test_metadata *_metadata, struct ctx *c)
{
	struct tpacket2_hdr *hdr;
	__be32 data;
	int n;

	for (n = 0;; n++) {
		hdr = (void *)(c->map + c->next * FRAME_SIZE);
		if (!(__atomic_load_n(&hdr->tp_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		ASSERT_GT(c->nring, n) TH_LOG("more frames in the ring");
		memcpy(&data, (__u8 *)hdr + hdr->tp_net, sizeof(data));
		ASSERT_EQ(c->in_ring[n], ntohl(data)) TH_LOG("frame %d", n);
		__atomic_store_n(&hdr->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		c->next = (c->next + 1) % c->req.tp_frame_nr;
	}
	ASSERT_EQ(c->nring, n) TH_LOG("frames in the ring");
	c->nring = 0;
}

/*
 * And the receive queue: the frames of the model and nothing else.  Frames
 * queued before a ring are thrown away today; a kernel that kept them would
 * have them first, all of them in order: both pass.
 */
static void check_queue(struct __test_metadata *_metadata, struct ctx *c)
{
	__be32 data;
	unsigned int k;
	int n;

	if (c->purged &&
	    recv(c->fd, &data, sizeof(data), MSG_DONTWAIT | MSG_PEEK) ==
	    (ssize_t)sizeof(data) && ntohl(data) == c->was_queued[0]) {
		for (k = 0; k < c->purged; k++) {
			n = recv(c->fd, &data, sizeof(data), MSG_DONTWAIT);
			ASSERT_EQ((int)sizeof(data), n) TH_LOG("kept %u", k);
			ASSERT_EQ(c->was_queued[k], ntohl(data))
				TH_LOG("kept frame %u", k);
		}
	}
	for (n = 0; n < c->nqueue; n++) {
		ASSERT_EQ((ssize_t)sizeof(data),
			  recv(c->fd, &data, sizeof(data), MSG_DONTWAIT))
			TH_LOG("frame %d", n);
		ASSERT_EQ(c->in_queue[n], ntohl(data)) TH_LOG("frame %d", n);
	}
	ASSERT_EQ(-1, recv(c->fd, &data, sizeof(data), MSG_DONTWAIT))
		TH_LOG("a frame more in the queue");
	ASSERT_EQ(EAGAIN, errno);
}

/* Run step @s on the socket and the model; returns the frames counted. */
static unsigned int do_step(struct __test_metadata *_metadata, struct ctx *c,
			    const struct step *s)
{
	size_t map_len = c->req.tp_block_size * RING_BLOCKS;
	struct tpacket_req none = {};
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(s->proto),
		.sll_ifindex = c->ifindex[s->dev],
	};
	unsigned int counted = 0;
	int i;

	switch (s->op) {
	case OP_RING:
		ASSERT_GE((unsigned int)MAX_FRAMES, c->purged + c->nqueue);
		memcpy(c->was_queued + c->purged, c->in_queue,
		       c->nqueue * sizeof(c->in_queue[0]));
		c->purged += c->nqueue;
		c->nqueue = 0;
		c->ring = true;
		ASSERT_EQ(0, setsockopt(c->fd, SOL_PACKET, PACKET_RX_RING,
					&c->req, sizeof(c->req)));
		c->map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, c->fd, 0);
		ASSERT_TRUE(c->map != MAP_FAILED);
		c->next = 0;
		break;
	case OP_UNRING:
		check_ring(_metadata, c);
		ASSERT_EQ(0, munmap(c->map, map_len));
		c->map = MAP_FAILED;
		c->ring = false;
		ASSERT_EQ(0, setsockopt(c->fd, SOL_PACKET, PACKET_RX_RING,
					&none, sizeof(none)));
		break;
	case OP_TX_RING:
		ASSERT_EQ(0, setsockopt(c->fd, SOL_PACKET, PACKET_TX_RING,
					&c->req, sizeof(c->req)));
		break;
	case OP_BIND:
		ASSERT_EQ(0, bind(c->fd, (struct sockaddr *)&sll, sizeof(sll)));
		c->dev = s->dev;
		if (s->proto)
			c->proto = s->proto;
		break;
	case OP_SEND:
		for (i = 0; i < BATCH; i++) {
			__u32 seq = c->seq++;

			send_frame(_metadata, c, s->dev, s->proto, seq);
			if (c->proto != s->proto ||
			    (c->dev && c->dev != s->dev))
				continue;
			counted++;
			if (c->ring)
				c->in_ring[c->nring++] = seq;
			else
				c->in_queue[c->nqueue++] = seq;
		}
		fence_dev(_metadata, c, s->dev);
		break;
	case OP_END:
		break;
	}
	return counted;
}

TEST_F(ring_bind, delivery)
{
	struct ctx *c = &self->c;
	unsigned int purged, counted;
	const struct step *s;

	check_hook(_metadata, c);
	for (s = variant->steps; s < variant->steps + MAX_STEPS && s->op; s++) {
		purged = c->purged;
		counted = do_step(_metadata, c, s);
		check_stats(_metadata, c->fd, counted, c->purged - purged);
		check_hook(_metadata, c);
	}
	if (c->ring)
		check_ring(_metadata, c);
	check_queue(_metadata, c);
}

TEST_HARNESS_MAIN

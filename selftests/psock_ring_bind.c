// SPDX-License-Identifier: GPL-2.0
/*
 * AF_PACKET receive rings and the order of PACKET_RX_RING and bind().
 *
 * packet_set_ring() detaches a running socket from the network while it
 * swaps the ring in, and must hook it again afterwards; packet_do_bind()
 * re-hooks a socket whose device or protocol changes.  Whatever the order
 * (ring then bind, bind then ring, bind - ring - rebind to another device
 * or protocol, frames queued before the ring), for TPACKET_V1/V2/V3,
 * SOCK_RAW and SOCK_DGRAM, sockets created with a protocol and with
 * protocol 0, exactly the frames sent must land in the ring, with the
 * right headers, and PACKET_STATISTICS must account for each of them.
 * Also: a full ring, ring setup errors (EBUSY, EINVAL), and the
 * protocol 0 send-only socket of packet(7), which must never be hooked.
 *
 * Run in a netns holding a veth pair named by $PSOCK_IF0 and $PSOCK_IF1,
 * see psock_ring_bind.sh.  Frames use IEEE local experimental EtherTypes
 * so that no other traffic is ever counted.
 *
 * No sleeps and no timing: every batch is followed by a fence frame of
 * another EtherType.  All frames are sent from one CPU, so the receiving
 * end processes them in order from that CPU's backlog, each frame through
 * all its packet sockets before the next.  Once the fence reached its
 * witness socket, every frame sent before it has been delivered or
 * dropped, and the counters are final.  poll() timeouts are a safety net.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define PROTO_A		0x88b5	/* IEEE local experimental EtherType 1 */
#define PROTO_B		0x88b6	/* IEEE local experimental EtherType 2 */
#define PROTO_FENCE	0x88b7	/* no handler in the kernel either */

#define MAGIC		0x50524231U	/* "PRB1" */
#define PAYLOAD_LEN	100
#define BATCH		6
#define FENCE_EVERY	64	/* well below netdev_max_backlog */
#define FRAME_SIZE	512
#define TOV_SHORT	2	/* ms: V3 blocks retire soon after a batch */
/* The timer may retire a V3 block per frame: more blocks than frames read */
#define RING_BLOCKS	16
#define TOV_NEVER	UINT_MAX	/* ms: 49 days, never within a test */
#define WAIT_MS		10000	/* safety net only, never an assertion */

/* The receiving end of most tests, and the other one. */
#define RX		1
#define TX		0

struct payload {
	__u32 magic;
	__u32 seq;
	__u16 proto;
	__u8 pad[PAYLOAD_LEN - 10];
};

static_assert(sizeof(struct payload) == PAYLOAD_LEN, "payload size");

struct link {
	int ifindex[2];
	unsigned char mac[2][ETH_ALEN];
	int tx;			/* send-only socket, protocol 0, unbound */
	int fence[2];		/* PROTO_FENCE witness bound to each end */
	__u32 seq;
};

/* A frame expected in a ring: received on end @dev, EtherType @proto. */
struct exp {
	int dev;
	__u16 proto;
	__u32 seq;
};

/* A frame found in a ring, copied out. */
struct rec {
	unsigned int status;
	unsigned int len;
	unsigned int snaplen;
	unsigned int mac_off;
	unsigned int net_off;
	struct sockaddr_ll sll;
	struct ethhdr eth;
	struct payload pl;
};

struct ring {
	int fd;
	int version;
	unsigned int block_size;
	unsigned int block_nr;
	unsigned int frame_size;
	unsigned int frame_nr;
	unsigned int next;	/* next frame (V1/V2) or block (V3) */
	unsigned int blocks;	/* V3 blocks read by the last harvest */
	__u8 *map;
	size_t map_len;
};

struct stats {
	unsigned int packets;
	unsigned int drops;
	unsigned int freeze;
};

static const char * const version_name[] = { "V1", "V2", "V3" };

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * struct tpacket_hdr has unsigned long fields and no compat layout: a
 * 32-bit program on a 64-bit kernel cannot use TPACKET_V1 (as in
 * psock_tpacket.c).
 */
static bool v1_usable(void)
{
	struct utsname u;

	if (uname(&u))
		return true;
	return !!strstr(u.machine, "64") == (sizeof(long) == 8);
}

static int pkt_socket(struct __test_metadata *_metadata, int type,
		      __u16 proto)
{
	int fd = socket(AF_PACKET, type, htons(proto));

	ASSERT_LE(0, fd) TH_LOG("socket(AF_PACKET): %s", strerror(errno));
	return fd;
}

static int do_bind(int fd, int ifindex, __u16 proto)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = ifindex,
	};

	return bind(fd, (struct sockaddr *)&sll, sizeof(sll));
}

static void pkt_bind(struct __test_metadata *_metadata, int fd, int ifindex,
		     __u16 proto)
{
	ASSERT_EQ(0, do_bind(fd, ifindex, proto))
		TH_LOG("bind(%d, 0x%04x): %s", ifindex, proto,
		       strerror(errno));
}

static int set_version(int fd, int version)
{
	return setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version,
			  sizeof(version));
}

/* Build a frame for end @to, as sent by the other end. */
static size_t build_frame(const struct link *l, __u8 *buf, bool ll_hdr,
			  int to, __u16 proto, __u32 seq)
{
	struct payload pl = {
		.magic = htonl(MAGIC),
		.seq = htonl(seq),
		.proto = htons(proto),
	};
	struct ethhdr eth;
	size_t off = 0;

	if (ll_hdr) {
		memcpy(eth.h_dest, l->mac[to], ETH_ALEN);
		memcpy(eth.h_source, l->mac[!to], ETH_ALEN);
		eth.h_proto = htons(proto);
		memcpy(buf, &eth, sizeof(eth));
		off = sizeof(eth);
	}
	memcpy(buf + off, &pl, sizeof(pl));
	return off + sizeof(pl);
}

/* Send one frame from socket @fd of type @type out of the peer of @to. */
static void send_one(struct __test_metadata *_metadata, const struct link *l,
		     int fd, int type, int to, __u16 proto, __u32 seq)
{
	__u8 buf[ETH_HLEN + PAYLOAD_LEN];
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(proto),
		.sll_ifindex = l->ifindex[!to],
		.sll_halen = ETH_ALEN,
	};
	size_t len;

	memcpy(sll.sll_addr, l->mac[to], ETH_ALEN);
	len = build_frame(l, buf, type == SOCK_RAW, to, proto, seq);
	ASSERT_EQ((ssize_t)len, sendto(fd, buf, len, 0,
				       (struct sockaddr *)&sll, sizeof(sll)))
		TH_LOG("sendto: %s", strerror(errno));
}

/* Wait until the fence frame @seq reached the witness of end @to. */
static void wait_fence(struct __test_metadata *_metadata, struct link *l,
		       int to, __u32 seq)
{
	struct pollfd pfd = { .fd = l->fence[to], .events = POLLIN };
	long long deadline = now_ms() + WAIT_MS;
	struct payload pl;
	ssize_t ret;

	for (;;) {
		ret = recv(l->fence[to], &pl, sizeof(pl), MSG_DONTWAIT);
		if (ret == (ssize_t)sizeof(pl) && ntohl(pl.magic) == MAGIC &&
		    ntohl(pl.seq) == seq)
			return;
		if (ret >= 0)
			continue;	/* an older fence */
		ASSERT_EQ(EAGAIN, errno);
		ASSERT_LT(now_ms(), deadline)
			TH_LOG("fence %u to end %d lost", seq, to);
		poll(&pfd, 1, 100);
	}
}

static void fence(struct __test_metadata *_metadata, struct link *l, int to)
{
	__u32 seq = l->seq++;

	send_one(_metadata, l, l->tx, SOCK_RAW, to, PROTO_FENCE, seq);
	wait_fence(_metadata, l, to, seq);
}

/*
 * Send @count frames of EtherType @proto to end @to, fenced, and append
 * them to @exp when they are expected in the ring.
 */
static void send_frames(struct __test_metadata *_metadata, struct link *l,
			int to, __u16 proto, int count,
			struct exp *exp, int *nexp)
{
	int i;

	for (i = 0; i < count; i++) {
		__u32 seq = l->seq++;

		send_one(_metadata, l, l->tx, SOCK_RAW, to, proto, seq);
		if (exp) {
			exp[*nexp].dev = to;
			exp[*nexp].proto = proto;
			exp[*nexp].seq = seq;
			(*nexp)++;
		}
		if ((i + 1) % FENCE_EVERY == 0)
			fence(_metadata, l, to);
	}
	fence(_metadata, l, to);
}

/* Returns false if the test is to be skipped. */
static bool link_open(struct __test_metadata *_metadata, struct link *l)
{
	const char *var[2] = { "PSOCK_IF0", "PSOCK_IF1" };
	struct ifreq ifr;
	cpu_set_t cpus;
	int i, cpu;

	l->tx = pkt_socket(_metadata, SOCK_RAW, 0);
	for (i = 0; i < 2; i++) {
		const char *name = getenv(var[i]);

		if (!name)
			SKIP(return false,
			     "%s not set: run psock_ring_bind.sh", var[i]);
		l->ifindex[i] = if_nametoindex(name);
		ASSERT_NE(0, l->ifindex[i]) TH_LOG("no device %s", name);

		memset(&ifr, 0, sizeof(ifr));
		ASSERT_GT(IFNAMSIZ, snprintf(ifr.ifr_name, IFNAMSIZ, "%s",
					     name));
		ASSERT_EQ(0, ioctl(l->tx, SIOCGIFHWADDR, &ifr));
		ASSERT_EQ(ARPHRD_ETHER, ifr.ifr_hwaddr.sa_family);
		memcpy(l->mac[i], ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	}

	/* One CPU, one backlog: frames are processed in sending order. */
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	for (i = 0; i < 2; i++) {
		l->fence[i] = pkt_socket(_metadata, SOCK_DGRAM, PROTO_FENCE);
		pkt_bind(_metadata, l->fence[i], l->ifindex[i], PROTO_FENCE);
	}
	/* Both directions pass frames before anything is counted. */
	fence(_metadata, l, RX);
	fence(_metadata, l, TX);
	return true;
}

static void link_close(struct link *l)
{
	close(l->fence[1]);
	close(l->fence[0]);
	close(l->tx);
}

static void get_stats(struct __test_metadata *_metadata, int fd, int version,
		      struct stats *st)
{
	struct tpacket_stats_v3 s3;
	socklen_t len = sizeof(s3);

	memset(&s3, 0, sizeof(s3));
	ASSERT_EQ(0, getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &s3, &len));
	ASSERT_EQ(version == TPACKET_V3 ? sizeof(struct tpacket_stats_v3) :
					  sizeof(struct tpacket_stats), len);
	st->packets = s3.tp_packets;
	st->drops = s3.tp_drops;
	st->freeze = version == TPACKET_V3 ? s3.tp_freeze_q_cnt : 0;
}

/* Check the counters, then that reading them cleared them. */
static void expect_stats(struct __test_metadata *_metadata, int fd,
			 int version, unsigned int packets,
			 unsigned int drops, unsigned int freeze)
{
	struct stats st;

	get_stats(_metadata, fd, version, &st);
	ASSERT_EQ(packets, st.packets) TH_LOG("tp_packets");
	ASSERT_EQ(drops, st.drops) TH_LOG("tp_drops");
	ASSERT_EQ(freeze, st.freeze) TH_LOG("tp_freeze_q_cnt");

	get_stats(_metadata, fd, version, &st);
	ASSERT_EQ(0U, st.packets) TH_LOG("tp_packets not cleared on read");
	ASSERT_EQ(0U, st.drops) TH_LOG("tp_drops not cleared on read");
	ASSERT_EQ(0U, st.freeze) TH_LOG("tp_freeze_q_cnt not cleared");
}

static int set_ring(int fd, int version, const struct tpacket_req3 *req)
{
	socklen_t len = sizeof(struct tpacket_req);

	if (version == TPACKET_V3)
		len = sizeof(struct tpacket_req3);
	return setsockopt(fd, SOL_PACKET, PACKET_RX_RING, req, len);
}

static void good_req(struct tpacket_req3 *req, unsigned int block_nr,
		     unsigned int tov)
{
	unsigned int page = sysconf(_SC_PAGESIZE);

	memset(req, 0, sizeof(*req));
	req->tp_block_size = page;
	req->tp_block_nr = block_nr;
	req->tp_frame_size = FRAME_SIZE;
	req->tp_frame_nr = block_nr * (page / FRAME_SIZE);
	req->tp_retire_blk_tov = tov;
}

static void ring_setup(struct __test_metadata *_metadata, struct ring *r,
		       int fd, int version, unsigned int block_nr,
		       unsigned int tov)
{
	struct tpacket_req3 req;

	good_req(&req, block_nr, tov);
	ASSERT_EQ(0, set_ring(fd, version, &req))
		TH_LOG("PACKET_RX_RING: %s", strerror(errno));

	r->fd = fd;
	r->version = version;
	r->block_size = req.tp_block_size;
	r->block_nr = req.tp_block_nr;
	r->frame_size = req.tp_frame_size;
	r->frame_nr = req.tp_frame_nr;
	r->next = 0;
	r->map_len = (size_t)r->block_size * r->block_nr;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	ASSERT_TRUE(r->map != MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
}

static void ring_unmap(struct ring *r)
{
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

static void copy_frame(struct rec *rec, const __u8 *frame,
		       unsigned int hdrlen)
{
	const __u8 *mac = frame + rec->mac_off;
	const __u8 *net = frame + rec->net_off;

	memcpy(&rec->sll, frame + TPACKET_ALIGN(hdrlen), sizeof(rec->sll));
	memset(&rec->eth, 0, sizeof(rec->eth));
	if (rec->net_off - rec->mac_off >= sizeof(rec->eth))
		memcpy(&rec->eth, mac, sizeof(rec->eth));
	memset(&rec->pl, 0, sizeof(rec->pl));
	if (rec->snaplen >= rec->net_off - rec->mac_off + sizeof(rec->pl))
		memcpy(&rec->pl, net, sizeof(rec->pl));
}

static __u8 *v12_frame(const struct ring *r, unsigned int i)
{
	unsigned int fpb = r->block_size / r->frame_size;

	return r->map + (size_t)(i / fpb) * r->block_size +
	       (i % fpb) * r->frame_size;
}

static int harvest_v12(struct ring *r, struct rec *recs, int max,
		       bool release)
{
	int n = 0;

	while (n < max) {
		__u8 *frame = v12_frame(r, r->next);
		struct tpacket2_hdr *h2 = (void *)frame;
		struct tpacket_hdr *h1 = (void *)frame;
		struct rec *rec = &recs[n];

		if (r->version == TPACKET_V1) {
			rec->status = __atomic_load_n(&h1->tp_status,
						      __ATOMIC_ACQUIRE);
			if (!(rec->status & TP_STATUS_USER))
				break;
			rec->len = h1->tp_len;
			rec->snaplen = h1->tp_snaplen;
			rec->mac_off = h1->tp_mac;
			rec->net_off = h1->tp_net;
			copy_frame(rec, frame, sizeof(*h1));
			if (release)
				__atomic_store_n(&h1->tp_status,
						 TP_STATUS_KERNEL,
						 __ATOMIC_RELEASE);
		} else {
			rec->status = __atomic_load_n(&h2->tp_status,
						      __ATOMIC_ACQUIRE);
			if (!(rec->status & TP_STATUS_USER))
				break;
			rec->len = h2->tp_len;
			rec->snaplen = h2->tp_snaplen;
			rec->mac_off = h2->tp_mac;
			rec->net_off = h2->tp_net;
			copy_frame(rec, frame, sizeof(*h2));
			if (release)
				__atomic_store_n(&h2->tp_status,
						 TP_STATUS_KERNEL,
						 __ATOMIC_RELEASE);
		}
		n++;
		r->next = (r->next + 1) % r->frame_nr;
		if (!release && r->next == 0)
			break;	/* full circle */
	}
	return n;
}

/*
 * V3 blocks become the user's when full or when the retire timer fires:
 * with @want >= 0, poll() for blocks until @want frames were read (the
 * deadline is only a safety net); with @want < 0, read the blocks that
 * are already the user's.
 */
static int harvest_v3(struct __test_metadata *_metadata, struct ring *r,
		      struct rec *recs, int max, int want, bool release)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	long long deadline = now_ms() + WAIT_MS;
	int n = 0;

	r->blocks = 0;
	while (r->blocks < r->block_nr && (want < 0 || n < want)) {
		struct tpacket_block_desc *bd;
		struct tpacket3_hdr *h3;
		unsigned int status, i, num;

		bd = (void *)(r->map + (size_t)r->next * r->block_size);
		status = __atomic_load_n(&bd->hdr.bh1.block_status,
					 __ATOMIC_ACQUIRE);
		if (!(status & TP_STATUS_USER)) {
			if (want < 0 || now_ms() > deadline)
				break;
			poll(&pfd, 1, 100);
			continue;
		}
		num = bd->hdr.bh1.num_pkts;
		h3 = (void *)((__u8 *)bd + bd->hdr.bh1.offset_to_first_pkt);
		for (i = 0; i < num; i++) {
			struct rec *rec = &recs[n];

			ASSERT_GT(max, n) TH_LOG("more frames than expected");
			rec->status = status;
			rec->len = h3->tp_len;
			rec->snaplen = h3->tp_snaplen;
			rec->mac_off = h3->tp_mac;
			rec->net_off = h3->tp_net;
			copy_frame(rec, (__u8 *)h3, sizeof(*h3));
			n++;
			h3 = (void *)((__u8 *)h3 + h3->tp_next_offset);
		}
		if (release)
			__atomic_store_n(&bd->hdr.bh1.block_status,
					 TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		r->blocks++;
		r->next = (r->next + 1) % r->block_nr;
	}
	return n;
}

static int harvest(struct __test_metadata *_metadata, struct ring *r,
		   struct rec *recs, int max, int want, bool release)
{
	if (r->version == TPACKET_V3)
		return harvest_v3(_metadata, r, recs, max, want, release);
	return harvest_v12(r, recs, max, release);
}

/* Hand every frame or block back to the kernel. */
static void ring_release_all(struct ring *r)
{
	unsigned int i;

	for (i = 0; r->version == TPACKET_V3 && i < r->block_nr; i++) {
		struct tpacket_block_desc *bd;

		bd = (void *)(r->map + (size_t)i * r->block_size);
		__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
	}
	for (i = 0; r->version != TPACKET_V3 && i < r->frame_nr; i++) {
		struct tpacket2_hdr *h2 = (void *)v12_frame(r, i);
		struct tpacket_hdr *h1 = (void *)h2;

		if (r->version == TPACKET_V1)
			__atomic_store_n(&h1->tp_status, TP_STATUS_KERNEL,
					 __ATOMIC_RELEASE);
		else
			__atomic_store_n(&h2->tp_status, TP_STATUS_KERNEL,
					 __ATOMIC_RELEASE);
	}
}

static void check_rec(struct __test_metadata *_metadata, const struct link *l,
		      int type, const struct rec *rec, const struct exp *e,
		      int i)
{
	unsigned int len = PAYLOAD_LEN;

	if (type == SOCK_RAW)
		len += ETH_HLEN;

	ASSERT_EQ(MAGIC, ntohl(rec->pl.magic)) TH_LOG("frame %d: magic", i);
	ASSERT_EQ(e->seq, ntohl(rec->pl.seq)) TH_LOG("frame %d: seq", i);
	ASSERT_EQ(e->proto, ntohs(rec->pl.proto)) TH_LOG("frame %d", i);
	ASSERT_EQ(len, rec->len) TH_LOG("frame %d: tp_len", i);
	ASSERT_EQ(len, rec->snaplen) TH_LOG("frame %d: tp_snaplen", i);
	ASSERT_EQ(AF_PACKET, rec->sll.sll_family) TH_LOG("frame %d", i);
	ASSERT_EQ(l->ifindex[e->dev], rec->sll.sll_ifindex)
		TH_LOG("frame %d: sll_ifindex", i);
	ASSERT_EQ(htons(e->proto), rec->sll.sll_protocol)
		TH_LOG("frame %d: sll_protocol", i);
	ASSERT_EQ(PACKET_HOST, rec->sll.sll_pkttype)
		TH_LOG("frame %d: sll_pkttype", i);
	ASSERT_EQ(ARPHRD_ETHER, rec->sll.sll_hatype) TH_LOG("frame %d", i);
	ASSERT_EQ(ETH_ALEN, rec->sll.sll_halen) TH_LOG("frame %d", i);
	ASSERT_EQ(0, memcmp(rec->sll.sll_addr, l->mac[!e->dev], ETH_ALEN))
		TH_LOG("frame %d: sll_addr is not the sender's", i);
	if (type == SOCK_RAW) {
		ASSERT_EQ((unsigned int)ETH_HLEN, rec->net_off - rec->mac_off)
			TH_LOG("frame %d: tp_net - tp_mac", i);
		ASSERT_EQ(htons(e->proto), rec->eth.h_proto)
			TH_LOG("frame %d: h_proto", i);
		ASSERT_EQ(0, memcmp(rec->eth.h_dest, l->mac[e->dev],
				    ETH_ALEN)) TH_LOG("frame %d: h_dest", i);
	} else {
		ASSERT_EQ(rec->mac_off, rec->net_off)
			TH_LOG("frame %d: SOCK_DGRAM has no ll header", i);
	}
}

static void expect_nothing_queued(struct __test_metadata *_metadata, int fd)
{
	char buf[ETH_HLEN + PAYLOAD_LEN];

	ASSERT_EQ(-1, recv(fd, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(EAGAIN, errno);
}

/*
 * Delivery, whatever the order of PACKET_RX_RING and bind().
 */
enum order {
	RING_THEN_BIND,		/* ring, frames, bind(RX, A) */
	BIND_THEN_RING,		/* bind(RX, A), ring */
	REBIND_DEV,		/* bind(RX, A), ring, bind(TX, A) */
	REBIND_PROTO,		/* bind(RX, A), ring, bind(RX, B) */
	QUEUE_THEN_RING,	/* bind(RX, A), frames queued, ring */
};

struct rb_ctx {
	struct link l;
	struct ring r;
	int fd;
};

FIXTURE(ring_bind)
{
	struct rb_ctx c;
};

FIXTURE_VARIANT(ring_bind)
{
	int version;
	enum order order;
};

FIXTURE_VARIANT_ADD(ring_bind, v1_ring_then_bind)
{
	.version = TPACKET_V1,
	.order = RING_THEN_BIND,
};

FIXTURE_VARIANT_ADD(ring_bind, v1_bind_then_ring)
{
	.version = TPACKET_V1,
	.order = BIND_THEN_RING,
};

FIXTURE_VARIANT_ADD(ring_bind, v1_rebind_dev)
{
	.version = TPACKET_V1,
	.order = REBIND_DEV,
};

FIXTURE_VARIANT_ADD(ring_bind, v1_rebind_proto)
{
	.version = TPACKET_V1,
	.order = REBIND_PROTO,
};

FIXTURE_VARIANT_ADD(ring_bind, v1_queue_then_ring)
{
	.version = TPACKET_V1,
	.order = QUEUE_THEN_RING,
};

FIXTURE_VARIANT_ADD(ring_bind, v2_ring_then_bind)
{
	.version = TPACKET_V2,
	.order = RING_THEN_BIND,
};

FIXTURE_VARIANT_ADD(ring_bind, v2_bind_then_ring)
{
	.version = TPACKET_V2,
	.order = BIND_THEN_RING,
};

FIXTURE_VARIANT_ADD(ring_bind, v2_rebind_dev)
{
	.version = TPACKET_V2,
	.order = REBIND_DEV,
};

FIXTURE_VARIANT_ADD(ring_bind, v2_rebind_proto)
{
	.version = TPACKET_V2,
	.order = REBIND_PROTO,
};

FIXTURE_VARIANT_ADD(ring_bind, v2_queue_then_ring)
{
	.version = TPACKET_V2,
	.order = QUEUE_THEN_RING,
};

FIXTURE_VARIANT_ADD(ring_bind, v3_ring_then_bind)
{
	.version = TPACKET_V3,
	.order = RING_THEN_BIND,
};

FIXTURE_VARIANT_ADD(ring_bind, v3_bind_then_ring)
{
	.version = TPACKET_V3,
	.order = BIND_THEN_RING,
};

FIXTURE_VARIANT_ADD(ring_bind, v3_rebind_dev)
{
	.version = TPACKET_V3,
	.order = REBIND_DEV,
};

FIXTURE_VARIANT_ADD(ring_bind, v3_rebind_proto)
{
	.version = TPACKET_V3,
	.order = REBIND_PROTO,
};

FIXTURE_VARIANT_ADD(ring_bind, v3_queue_then_ring)
{
	.version = TPACKET_V3,
	.order = QUEUE_THEN_RING,
};

FIXTURE_SETUP(ring_bind)
{
	self->c.fd = -1;
	if (variant->version == TPACKET_V1 && !v1_usable())
		SKIP(return, "TPACKET_V1: 32-bit program, 64-bit kernel");
	link_open(_metadata, &self->c.l);
}

FIXTURE_TEARDOWN(ring_bind)
{
	ring_unmap(&self->c.r);
	if (self->c.fd >= 0)
		close(self->c.fd);
	link_close(&self->c.l);
}

/* @sock_proto 0: hooked by bind() only */
static void deliver(struct __test_metadata *_metadata, struct rb_ctx *c,
		    int ver, enum order order, int type, __u16 sock_proto)
{
	struct exp exp[3 * BATCH];
	struct rec rec[3 * BATCH];
	struct link *l = &c->l;
	struct ring *r = &c->r;
	int nexp = 0, queued = 0, inq = 0, n, i, fd;

	fd = pkt_socket(_metadata, type, sock_proto);
	c->fd = fd;
	ASSERT_EQ(0, set_version(fd, ver));

	switch (order) {
	case RING_THEN_BIND:
		ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
		/* hooked on every device if created with a protocol only */
		send_frames(_metadata, l, RX, PROTO_A, BATCH,
			    sock_proto ? exp : NULL, &nexp);
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
		break;
	case BIND_THEN_RING:
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
		ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
		break;
	case REBIND_DEV:
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
		ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
		pkt_bind(_metadata, fd, l->ifindex[TX], PROTO_A);
		send_frames(_metadata, l, TX, PROTO_A, BATCH, exp, &nexp);
		/* to the old device: not for this socket any more */
		send_frames(_metadata, l, RX, PROTO_A, BATCH, NULL, NULL);
		break;
	case REBIND_PROTO:
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
		ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_B);
		send_frames(_metadata, l, RX, PROTO_B, BATCH, exp, &nexp);
		/* the old protocol: not for this socket any more */
		send_frames(_metadata, l, RX, PROTO_A, BATCH, NULL, NULL);
		break;
	case QUEUE_THEN_RING:
		pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, NULL, NULL);
		queued = BATCH;
		/* they sit in the receive queue, counted in tp_packets */
		ASSERT_EQ(0, ioctl(fd, SIOCINQ, &inq));
		ASSERT_EQ(PAYLOAD_LEN + (type == SOCK_RAW ? ETH_HLEN : 0), inq);
		ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
		send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
		break;
	}

	/*
	 * The fences made the counters final: check them first, so that a
	 * socket left unhooked fails here rather than waiting for V3 blocks.
	 * Today, frames queued by packet_rcv() before the ring existed are
	 * purged by packet_set_ring(): they stay counted in tp_packets, are
	 * never delivered and are not reported in tp_drops.
	 */
	expect_stats(_metadata, fd, ver, nexp + queued, 0, 0);

	n = harvest(_metadata, r, rec, ARRAY_SIZE(rec), nexp, true);
	ASSERT_EQ(nexp, n) TH_LOG("%s ring: frames delivered",
				  version_name[ver]);
	for (i = 0; i < n; i++)
		check_rec(_metadata, l, type, &rec[i], &exp[i], i);
	ASSERT_EQ(0, harvest(_metadata, r, rec, ARRAY_SIZE(rec), -1, true));
	expect_nothing_queued(_metadata, fd);
	expect_stats(_metadata, fd, ver, 0, 0, 0);
}

TEST_F(ring_bind, raw_proto)
{
	deliver(_metadata, &self->c, variant->version, variant->order,
		SOCK_RAW, PROTO_A);
}

TEST_F(ring_bind, raw_noproto)
{
	deliver(_metadata, &self->c, variant->version, variant->order,
		SOCK_RAW, 0);
}

TEST_F(ring_bind, dgram_proto)
{
	deliver(_metadata, &self->c, variant->version, variant->order,
		SOCK_DGRAM, PROTO_A);
}

TEST_F(ring_bind, dgram_noproto)
{
	deliver(_metadata, &self->c, variant->version, variant->order,
		SOCK_DGRAM, 0);
}

/*
 * A ring left full: every frame is either in the ring or a drop.
 */
FIXTURE(ring_full)
{
	struct link l;
	struct ring r;
	struct exp *exp;
	struct rec *rec;
	int fd;
};

FIXTURE_VARIANT(ring_full)
{
	int version;
	int type;
};

FIXTURE_VARIANT_ADD(ring_full, v1_raw) { TPACKET_V1, SOCK_RAW };
FIXTURE_VARIANT_ADD(ring_full, v1_dgram) { TPACKET_V1, SOCK_DGRAM };
FIXTURE_VARIANT_ADD(ring_full, v2_raw) { TPACKET_V2, SOCK_RAW };
FIXTURE_VARIANT_ADD(ring_full, v2_dgram) { TPACKET_V2, SOCK_DGRAM };
FIXTURE_VARIANT_ADD(ring_full, v3_raw) { TPACKET_V3, SOCK_RAW };
FIXTURE_VARIANT_ADD(ring_full, v3_dgram) { TPACKET_V3, SOCK_DGRAM };

FIXTURE_SETUP(ring_full)
{
	self->fd = -1;
	if (variant->version == TPACKET_V1 && !v1_usable())
		SKIP(return, "TPACKET_V1: 32-bit program, 64-bit kernel");
	if (!link_open(_metadata, &self->l))
		return;
	self->fd = pkt_socket(_metadata, variant->type, PROTO_A);
	ASSERT_EQ(0, set_version(self->fd, variant->version));
}

FIXTURE_TEARDOWN(ring_full)
{
	free(self->rec);
	free(self->exp);
	ring_unmap(&self->r);
	close(self->fd);
	link_close(&self->l);
}

TEST_F(ring_full, stats)
{
	struct link *l = &self->l;
	struct ring *r = &self->r;
	int fd = self->fd, ver = variant->version;
	int sent, nexp = 0, n, i;
	bool v3 = ver == TPACKET_V3;

	pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
	/* V3: no retire timer, blocks close only when full */
	ring_setup(_metadata, r, fd, ver, 2, TOV_NEVER);

	/* a frame takes more than 128 bytes of any ring */
	sent = r->map_len / 128 + BATCH;
	self->exp = calloc(sent + BATCH, sizeof(*self->exp));
	self->rec = calloc(sent + BATCH, sizeof(*self->rec));
	ASSERT_TRUE(self->exp && self->rec);

	send_frames(_metadata, l, RX, PROTO_A, sent, self->exp, &nexp);
	n = harvest(_metadata, r, self->rec, sent, -1, false);
	/* full: every frame (V1/V2), every block (V3) */
	ASSERT_EQ(v3 ? r->block_nr : r->frame_nr,
		  v3 ? r->blocks : (unsigned int)n);
	ASSERT_LT(n, sent);
	/* the ring holds the first frames, in order */
	for (i = 0; i < n; i++)
		check_rec(_metadata, l, variant->type, &self->rec[i],
			  &self->exp[i], i);

	/* frames after drops are flagged until the counters are read */
	ring_release_all(r);
	nexp = 0;
	send_frames(_metadata, l, RX, PROTO_A, 1, self->exp, &nexp);
	if (!v3) {
		ASSERT_EQ(1, harvest(_metadata, r, self->rec, 1, 1, true));
		check_rec(_metadata, l, variant->type, &self->rec[0],
			  &self->exp[0], 0);
		ASSERT_NE(0U, self->rec[0].status & TP_STATUS_LOSING);
	}
	/* tp_packets counts the drops too; one freeze for V3 */
	expect_stats(_metadata, fd, ver, sent + 1, sent - n, v3);

	/* counters cleared: no more TP_STATUS_LOSING */
	nexp = 0;
	send_frames(_metadata, l, RX, PROTO_A, BATCH, self->exp, &nexp);
	if (!v3) {
		ASSERT_EQ(BATCH, harvest(_metadata, r, self->rec, BATCH,
					 BATCH, true));
		for (i = 0; i < BATCH; i++) {
			check_rec(_metadata, l, variant->type, &self->rec[i],
				  &self->exp[i], i);
			ASSERT_EQ(0U, self->rec[i].status & TP_STATUS_LOSING);
		}
	}
	expect_stats(_metadata, fd, ver, BATCH, 0, 0);
}

/*
 * A ring cannot change while mapped, nor the version while a ring exists;
 * tearing the ring down keeps the socket hooked.
 */
FIXTURE(ring_busy)
{
	struct link l;
	struct ring r;
	int fd;
};

FIXTURE_VARIANT(ring_busy)
{
	int version;
};

FIXTURE_VARIANT_ADD(ring_busy, v1) { TPACKET_V1 };
FIXTURE_VARIANT_ADD(ring_busy, v2) { TPACKET_V2 };
FIXTURE_VARIANT_ADD(ring_busy, v3) { TPACKET_V3 };

FIXTURE_SETUP(ring_busy)
{
	self->fd = -1;
	if (variant->version == TPACKET_V1 && !v1_usable())
		SKIP(return, "TPACKET_V1: 32-bit program, 64-bit kernel");
	if (!link_open(_metadata, &self->l))
		return;
	self->fd = pkt_socket(_metadata, SOCK_DGRAM, PROTO_A);
	ASSERT_EQ(0, set_version(self->fd, variant->version));
}

FIXTURE_TEARDOWN(ring_busy)
{
	ring_unmap(&self->r);
	close(self->fd);
	link_close(&self->l);
}

TEST_F(ring_busy, ebusy)
{
	int other = variant->version == TPACKET_V2 ? TPACKET_V1 : TPACKET_V2;
	struct link *l = &self->l;
	struct ring *r = &self->r;
	int fd = self->fd, ver = variant->version;
	struct tpacket_req3 req, none;
	struct exp exp[BATCH];
	struct rec rec[BATCH];
	int nexp = 0, i;

	memset(&none, 0, sizeof(none));
	pkt_bind(_metadata, fd, l->ifindex[RX], PROTO_A);
	ring_setup(_metadata, r, fd, ver, 2, TOV_SHORT);
	good_req(&req, 4, TOV_SHORT);

	/* mapped: no new ring, no teardown, no version change */
	ASSERT_EQ(-1, set_ring(fd, ver, &req));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(-1, set_ring(fd, ver, &none));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(-1, set_version(fd, other));
	ASSERT_EQ(EBUSY, errno);

	/* unmapped, the ring still exists */
	ring_unmap(r);
	ASSERT_EQ(-1, set_ring(fd, ver, &req));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(-1, set_version(fd, other));
	ASSERT_EQ(EBUSY, errno);

	/* torn down: the version can change again */
	ASSERT_EQ(0, set_ring(fd, ver, &none));
	ASSERT_EQ(0, set_version(fd, other));
	ASSERT_EQ(0, set_version(fd, ver));

	/* still hooked: frames go to the receive queue */
	send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
	for (i = 0; i < BATCH; i++) {
		struct sockaddr_ll sll;
		socklen_t alen = sizeof(sll);
		struct payload pl;
		ssize_t ret;

		ret = recvfrom(fd, &pl, sizeof(pl), MSG_DONTWAIT,
			       (struct sockaddr *)&sll, &alen);
		ASSERT_EQ((ssize_t)sizeof(pl), ret) TH_LOG("frame %d", i);
		ASSERT_EQ(exp[i].seq, ntohl(pl.seq));
		ASSERT_EQ(l->ifindex[RX], sll.sll_ifindex);
		ASSERT_EQ(htons(PROTO_A), sll.sll_protocol);
		ASSERT_EQ(PACKET_HOST, sll.sll_pkttype);
	}
	expect_nothing_queued(_metadata, fd);
	expect_stats(_metadata, fd, ver, BATCH, 0, 0);

	/* and a new ring takes over */
	ring_setup(_metadata, r, fd, ver, RING_BLOCKS, TOV_SHORT);
	nexp = 0;
	send_frames(_metadata, l, RX, PROTO_A, BATCH, exp, &nexp);
	expect_stats(_metadata, fd, ver, BATCH, 0, 0);
	ASSERT_EQ(BATCH, harvest(_metadata, r, rec, BATCH, BATCH, true));
	for (i = 0; i < BATCH; i++)
		check_rec(_metadata, l, SOCK_DGRAM, &rec[i], &exp[i], i);
}

/*
 * Invalid ring requests: EINVAL, and no ring is left behind.
 */
FIXTURE(ring_req)
{
	unsigned int page;
};

FIXTURE_VARIANT(ring_req)
{
	int version;
};

FIXTURE_VARIANT_ADD(ring_req, v1) { TPACKET_V1 };
FIXTURE_VARIANT_ADD(ring_req, v2) { TPACKET_V2 };
FIXTURE_VARIANT_ADD(ring_req, v3) { TPACKET_V3 };

FIXTURE_SETUP(ring_req)
{
	if (variant->version == TPACKET_V1 && !v1_usable())
		SKIP(return, "TPACKET_V1: 32-bit program, 64-bit kernel");
	self->page = sysconf(_SC_PAGESIZE);
}

FIXTURE_TEARDOWN(ring_req)
{
}

enum bad {
	VALID,
	BLOCK_SIZE_ZERO,
	BLOCK_SIZE_NEGATIVE,
	BLOCK_SIZE_UNALIGNED,
	FRAME_SIZE_BELOW_HDR,
	FRAME_SIZE_BELOW_RESERVE,
	FRAME_SIZE_UNALIGNED,
	FRAME_SIZE_ABOVE_BLOCK,
	FRAME_NR_LOW,
	FRAME_NR_HIGH,
	FRAME_NR_NO_BLOCKS,
	FRAME_NR_OVERFLOW,
	OPTLEN_SHORT,
	V3_PRIV_ABOVE_BLOCK,
	V3_PRIV_OVERFLOW,
};

static const struct {
	enum bad bad;
	const char *name;
	bool v3_only;
} bad_reqs[] = {
	{ BLOCK_SIZE_ZERO, "block size 0", false },
	{ BLOCK_SIZE_NEGATIVE, "block size negative as an int", false },
	{ BLOCK_SIZE_UNALIGNED, "block size not page aligned", false },
	{ FRAME_SIZE_BELOW_HDR, "frame size below the tpacket header", false },
	{ FRAME_SIZE_BELOW_RESERVE, "frame size below hdr + reserve", false },
	{ FRAME_SIZE_UNALIGNED, "frame size misaligned", false },
	{ FRAME_SIZE_ABOVE_BLOCK, "frame size above block size", false },
	{ FRAME_NR_LOW, "frame_nr below block_nr * frames per block", false },
	{ FRAME_NR_HIGH, "frame_nr above block_nr * frames per block", false },
	{ FRAME_NR_NO_BLOCKS, "frame_nr without blocks", false },
	{ FRAME_NR_OVERFLOW, "block_nr * frames per block overflows", false },
	{ OPTLEN_SHORT, "optlen below the version's request", false },
	{ V3_PRIV_ABOVE_BLOCK, "V3 priv area above block size", true },
	{ V3_PRIV_OVERFLOW, "V3 priv area size overflows", true },
};

/*
 * Break one thing in a valid request: 2 blocks of a page, 1024 byte
 * frames.  Return the optlen to pass.
 */
static socklen_t bad_req(enum bad bad, int version, unsigned int page,
			 struct tpacket_req3 *req, unsigned int *reserve)
{
	unsigned int fpb;
	socklen_t len = sizeof(struct tpacket_req);

	if (version == TPACKET_V3)
		len = sizeof(struct tpacket_req3);
	memset(req, 0, sizeof(*req));
	req->tp_block_size = page;
	req->tp_block_nr = 2;
	req->tp_frame_size = 1024;
	*reserve = 0;

	switch (bad) {
	case BLOCK_SIZE_ZERO:
		req->tp_block_size = 0;
		break;
	case BLOCK_SIZE_NEGATIVE:
		req->tp_block_size = 1U << 31;	/* page aligned */
		break;
	case BLOCK_SIZE_UNALIGNED:
		req->tp_block_size = page + page / 2;
		break;
	case FRAME_SIZE_BELOW_HDR:
		req->tp_frame_size = 48;	/* < TPACKET*_HDRLEN */
		break;
	case FRAME_SIZE_BELOW_RESERVE:
		*reserve = req->tp_frame_size;
		break;
	case FRAME_SIZE_UNALIGNED:
		req->tp_frame_size = 1000;
		break;
	case FRAME_SIZE_ABOVE_BLOCK:
		req->tp_frame_size = 2 * page;
		break;
	case FRAME_NR_OVERFLOW:
		req->tp_frame_size = 128;
		/* block_nr * frames per block is exactly 2^32 */
		req->tp_block_nr = (1ULL << 32) / (page / 128);
		break;
	case OPTLEN_SHORT:
		len = version == TPACKET_V3 ? sizeof(struct tpacket_req) :
					      sizeof(struct tpacket_req) - 1;
		break;
	case V3_PRIV_ABOVE_BLOCK:
		req->tp_sizeof_priv = page;
		break;
	case V3_PRIV_OVERFLOW:
		req->tp_sizeof_priv = UINT_MAX;
		break;
	default:
		break;
	}

	/* the right frame count (wrapped to 0 for FRAME_NR_OVERFLOW) ... */
	fpb = req->tp_frame_size ? req->tp_block_size / req->tp_frame_size : 0;
	req->tp_frame_nr = fpb * req->tp_block_nr;
	if (bad == FRAME_SIZE_ABOVE_BLOCK || bad == BLOCK_SIZE_ZERO)
		req->tp_frame_nr = 2;
	/* ... or not */
	if (bad == FRAME_NR_LOW)
		req->tp_frame_nr--;
	if (bad == FRAME_NR_HIGH)
		req->tp_frame_nr++;
	if (bad == FRAME_NR_NO_BLOCKS)
		req->tp_block_nr = 0;
	return len;
}

TEST_F(ring_req, einval)
{
	struct tpacket_req3 req;
	unsigned int i, reserve;
	socklen_t len;
	int fd, ret;

	for (i = 0; i < ARRAY_SIZE(bad_reqs); i++) {
		const char *name = bad_reqs[i].name;

		if (bad_reqs[i].v3_only && variant->version != TPACKET_V3)
			continue;
		len = bad_req(bad_reqs[i].bad, variant->version, self->page,
			      &req, &reserve);

		fd = pkt_socket(_metadata, SOCK_RAW, 0);
		ASSERT_EQ(0, set_version(fd, variant->version));
		ASSERT_EQ(0, setsockopt(fd, SOL_PACKET, PACKET_RESERVE,
					&reserve, sizeof(reserve)));
		ret = setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, len);
		EXPECT_EQ(-1, ret) TH_LOG("%s: accepted", name);
		if (ret) {
			EXPECT_EQ(EINVAL, errno)
				TH_LOG("%s: %s", name, strerror(errno));
		}
		/* no ring was left behind: the version can still change */
		EXPECT_EQ(0, set_version(fd, TPACKET_V2)) TH_LOG("%s", name);
		close(fd);
	}

	/* the valid request all these were derived from works */
	len = bad_req(VALID, variant->version, self->page, &req, &reserve);
	fd = pkt_socket(_metadata, SOCK_RAW, 0);
	ASSERT_EQ(0, set_version(fd, variant->version));
	ASSERT_EQ(0, setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, len));
	ASSERT_EQ(-1, set_version(fd, TPACKET_V2));
	ASSERT_EQ(EBUSY, errno);
	close(fd);
}

/*
 * socket(AF_PACKET, type, 0), never bound with a protocol: receives
 * nothing and is not hooked, but sends (keepalived relies on it).
 */
FIXTURE(proto0)
{
	struct link l;
	struct ring r;
	int fd;
	int peer;
};

FIXTURE_VARIANT(proto0)
{
	int type;
	bool bind_dev;		/* bind(ifindex, protocol 0) */
	bool ring;		/* with a TPACKET_V2 rx ring */
};

FIXTURE_VARIANT_ADD(proto0, raw) { SOCK_RAW, false, false };
FIXTURE_VARIANT_ADD(proto0, raw_bound) { SOCK_RAW, true, false };
FIXTURE_VARIANT_ADD(proto0, raw_bound_ring) { SOCK_RAW, true, true };
FIXTURE_VARIANT_ADD(proto0, dgram) { SOCK_DGRAM, false, false };
FIXTURE_VARIANT_ADD(proto0, dgram_bound) { SOCK_DGRAM, true, false };
FIXTURE_VARIANT_ADD(proto0, dgram_ring) { SOCK_DGRAM, false, true };

FIXTURE_SETUP(proto0)
{
	if (!link_open(_metadata, &self->l))
		return;
	self->fd = pkt_socket(_metadata, variant->type, 0);
	self->peer = pkt_socket(_metadata, SOCK_DGRAM, PROTO_A);
	pkt_bind(_metadata, self->peer, self->l.ifindex[TX], PROTO_A);
}

FIXTURE_TEARDOWN(proto0)
{
	ring_unmap(&self->r);
	close(self->peer);
	close(self->fd);
	link_close(&self->l);
}

struct proc_packet {
	int type;
	unsigned int proto;
	int iface;
	int running;
};

/* The /proc/net/packet line of socket @fd. */
static void proc_packet(struct __test_metadata *_metadata, int fd,
			struct proc_packet *pp)
{
	const char *hdr = "RefCnt Type Proto  Iface R Rmem   User   Inode";
	char line[256];
	struct stat st;
	bool found = false;
	FILE *f;

	ASSERT_EQ(0, fstat(fd, &st));
	f = fopen("/proc/net/packet", "r");
	ASSERT_TRUE(!!f);
	ASSERT_TRUE(!!fgets(line, sizeof(line), f));
	ASSERT_TRUE(!!strstr(line, hdr)) TH_LOG("columns: %s", line);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned int refcnt, rmem, uid;
		unsigned long inode;
		int ret;

		ret = sscanf(line, "%*s %u %d %x %d %d %u %u %lu", &refcnt,
			     &pp->type, &pp->proto, &pp->iface, &pp->running,
			     &rmem, &uid, &inode);
		ASSERT_EQ(8, ret) TH_LOG("%s", line);
		found = inode == st.st_ino;
	}
	fclose(f);
	ASSERT_TRUE(found) TH_LOG("inode %lu not in /proc/net/packet",
				  (unsigned long)st.st_ino);
}

TEST_F(proto0, send_only)
{
	int ifindex = variant->bind_dev ? self->l.ifindex[RX] : 0;
	struct link *l = &self->l;
	struct proc_packet pp;
	struct rec rec[1];
	int fd = self->fd;
	__u32 seq;
	int i;

	if (variant->bind_dev)
		pkt_bind(_metadata, fd, ifindex, 0);
	if (variant->ring) {
		ASSERT_EQ(0, set_version(fd, TPACKET_V2));
		ring_setup(_metadata, &self->r, fd, TPACKET_V2, 2, 0);
	}

	/* the parser works: a hooked socket shows R=1 */
	proc_packet(_metadata, l->fence[RX], &pp);
	ASSERT_EQ((unsigned int)PROTO_FENCE, pp.proto);
	ASSERT_EQ(l->ifindex[RX], pp.iface);
	ASSERT_EQ(1, pp.running);

	proc_packet(_metadata, fd, &pp);
	ASSERT_EQ(variant->type, pp.type);
	ASSERT_EQ(0U, pp.proto);
	ASSERT_EQ(ifindex, pp.iface);
	ASSERT_EQ(0, pp.running) TH_LOG("protocol 0 socket is hooked");

	/* frames of every kind arrive on its device: it gets none */
	send_frames(_metadata, l, RX, PROTO_A, BATCH, NULL, NULL);
	send_frames(_metadata, l, RX, PROTO_B, BATCH, NULL, NULL);
	expect_nothing_queued(_metadata, fd);
	if (variant->ring)
		ASSERT_EQ(0, harvest(_metadata, &self->r, rec, 1, -1, false));
	expect_stats(_metadata, fd, TPACKET_V1, 0, 0, 0);

	/* but it sends, with the EtherType given to sendto() */
	seq = l->seq;
	l->seq += BATCH;
	for (i = 0; i < BATCH; i++)
		send_one(_metadata, l, fd, variant->type, TX, PROTO_A,
			 seq + i);
	fence(_metadata, l, TX);
	for (i = 0; i < BATCH; i++) {
		struct sockaddr_ll sll;
		socklen_t alen = sizeof(sll);
		struct payload pl;
		ssize_t ret;

		ret = recvfrom(self->peer, &pl, sizeof(pl), MSG_DONTWAIT,
			       (struct sockaddr *)&sll, &alen);
		ASSERT_EQ((ssize_t)sizeof(pl), ret) TH_LOG("frame %d", i);
		ASSERT_EQ(MAGIC, ntohl(pl.magic));
		ASSERT_EQ(seq + i, ntohl(pl.seq));
		ASSERT_EQ(htons(PROTO_A), sll.sll_protocol);
		ASSERT_EQ(PACKET_HOST, sll.sll_pkttype);
		ASSERT_EQ(l->ifindex[TX], sll.sll_ifindex);
		ASSERT_EQ(0, memcmp(sll.sll_addr, l->mac[RX], ETH_ALEN));
	}
	expect_nothing_queued(_metadata, self->peer);
	expect_stats(_metadata, self->peer, TPACKET_V1, BATCH, 0, 0);

	/* sending did not hook it either */
	expect_nothing_queued(_metadata, fd);
	expect_stats(_metadata, fd, TPACKET_V1, 0, 0, 0);
	proc_packet(_metadata, fd, &pp);
	ASSERT_EQ(0U, pp.proto);
	ASSERT_EQ(0, pp.running);
}

TEST_HARNESS_MAIN

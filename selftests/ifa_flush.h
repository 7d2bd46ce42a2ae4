/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What ifa_flush and ifa_flusher share: address requests through the YNL
 * rt-addr family (one address, or all of a device's IPv4 or IPv6
 * addresses with NLM_F_BULK),
 * joining rtnetlink groups, and the question whether the kernel knows
 * IFA_F_FLUSH.
 */
#ifndef IFA_FLUSH_H
#define IFA_FLUSH_H

#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>

#include <linux/if_addr.h>
#include <linux/netlink.h>

#include <ynl.h>
#include "rt-addr-user.h"

/*
 * RTM_NEWADDR (with @nlflags, e.g. NLM_F_CREATE | NLM_F_EXCL) or
 * RTM_DELADDR of @local/@plen on @ifindex, with IFA_ADDRESS @address (the
 * peer; NULL: @local) and with @flags in IFA_FLAGS if not 0: 0, -errno
 * from the kernel (its extack message is then in ys->err.msg), or -EINVAL
 * for an address that does not parse.  IFA_LOCAL carries @local for IPv4
 * always, for IPv6 only with a peer (as the kernel's dumps have it: an
 * IPv6 address without a peer is IFA_ADDRESS alone).
 */
static inline int ifa_req(struct ynl_sock *ys, int type, __u16 nlflags,
			  int family, int ifindex, const char *local,
			  const char *address, int plen, __u32 flags)
{
	size_t alen = family == AF_INET ? 4 : 16;
	unsigned char l[16], a[16];
	int ret;

	if (inet_pton(family, local, l) != 1 ||
	    inet_pton(family, address ?: local, a) != 1)
		return -EINVAL;
	if (type == RTM_NEWADDR) {
		struct rt_addr_newaddr_req *req = rt_addr_newaddr_req_alloc();

		if (!req)
			return -ENOMEM;
		rt_addr_newaddr_req_set_nlflags(req, nlflags);
		req->_hdr.ifa_family = family;
		req->_hdr.ifa_prefixlen = plen;
		req->_hdr.ifa_index = ifindex;
		if (family == AF_INET || address)
			rt_addr_newaddr_req_set_local(req, l, alen);
		rt_addr_newaddr_req_set_address(req, a, alen);
		if (flags)
			rt_addr_newaddr_req_set_flags(req, flags);
		ret = rt_addr_newaddr(ys, req);
		rt_addr_newaddr_req_free(req);
	} else {
		struct rt_addr_deladdr_req *req = rt_addr_deladdr_req_alloc();

		if (!req)
			return -ENOMEM;
		req->_hdr.ifa_family = family;
		req->_hdr.ifa_prefixlen = plen;
		req->_hdr.ifa_index = ifindex;
		if (family == AF_INET || address)
			rt_addr_deladdr_req_set_local(req, l, alen);
		rt_addr_deladdr_req_set_address(req, a, alen);
		if (flags)
			rt_addr_deladdr_req_set_flags(req, flags);
		ret = rt_addr_deladdr(ys, req);
		rt_addr_deladdr_req_free(req);
	}
	/* err.code is 0 if the request could not even be sent */
	return ret ? -(int)(ys->err.code ?: EIO) : 0;
}

/*
 * RTM_DELADDR with NLM_F_BULK and the header @ifm, with IFA_LOCAL @local
 * (an address of ifm->ifa_family) if not NULL.  The kernel takes the
 * family and the device (ifa_index) only: the other header fields and
 * @local are for the tests of its refusals.  0, or -errno from the kernel
 * (-EOPNOTSUPP with "Bulk delete is not supported" on a kernel without it
 * for that family).
 */
static inline int ifa_bulk_del(struct ynl_sock *ys,
			       const struct ifaddrmsg *ifm, const char *local)
{
	size_t alen = ifm->ifa_family == AF_INET6 ? 16 : 4;
	struct rt_addr_deladdr_req *req;
	unsigned char l[16];
	int ret;

	if (local && inet_pton(ifm->ifa_family, local, l) != 1)
		return -EINVAL;
	req = rt_addr_deladdr_req_alloc();
	if (!req)
		return -ENOMEM;
	rt_addr_deladdr_req_set_nlflags(req, NLM_F_BULK);
	req->_hdr = *ifm;
	if (local)
		rt_addr_deladdr_req_set_local(req, l, alen);
	ret = rt_addr_deladdr(ys, req);
	rt_addr_deladdr_req_free(req);
	return ret ? -(int)(ys->err.code ?: EIO) : 0;
}

/*
 * Join an rtnetlink group (RTNLGRP_*): ynl_subscribe() resolves the groups
 * of generic netlink families only.  The notifications are then parsed by
 * ynl_ntf_check().
 */
static inline int ifa_join(struct ynl_sock *ys, unsigned int group)
{
	return setsockopt(ynl_socket_get_fd(ys), SOL_NETLINK,
			  NETLINK_ADD_MEMBERSHIP, &group, sizeof(group));
}

/*
 * Does the kernel know IFA_F_FLUSH?  It rejects the flag on RTM_NEWADDR
 * (1); an older kernel stores it, and the address is taken back (0).  The
 * delete path, which the tests exercise, is not used to decide.  @scratch
 * (an IPv4 /24) must not be on @ifindex.  -1 on any other outcome.
 */
static inline int ifa_flag_known(struct ynl_sock *ys, int ifindex,
				 const char *scratch)
{
	int err;

	err = ifa_req(ys, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, AF_INET,
		      ifindex, scratch, NULL, 24, IFA_F_FLUSH);
	if (err == -EINVAL)
		return 1;
	if (err)
		return -1;
	return ifa_req(ys, RTM_DELADDR, 0, AF_INET, ifindex, scratch, NULL, 24,
		       0) ? -1 : 0;
}

#endif /* IFA_FLUSH_H */

#define _GNU_SOURCE
/* linux.netDevices: host interfaces moved into the container's network
 * namespace (and renamed) over rtnetlink, one RTM_NEWLINK each with
 * IFLA_NET_NS_FD and IFLA_IFNAME.  Nothing to undo at delete: when the
 * namespace goes, the kernel returns physical devices to the host's and
 * destroys virtual ones. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crt/process.h"

struct req {
  struct nlmsghdr nh;
  struct ifinfomsg ifi;
  char attrs[64];
};

static void add_attr(struct req *r, unsigned short type, const void *data, size_t len) {
  struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));
  a->rta_type = type;
  a->rta_len = (unsigned short)RTA_LENGTH(len);
  memcpy(RTA_DATA(a), data, len);
  r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Sends one request and reads its acknowledgement: 0, or -errno. */
static int talk(int sock, struct req *r) {
  if (send(sock, r, r->nh.nlmsg_len, 0) < 0) return -errno;
  char buf[4096];
  ssize_t n = recv(sock, buf, sizeof buf, 0);
  if (n < 0) return -errno;
  struct nlmsghdr *h = (struct nlmsghdr *)buf;
  if (!NLMSG_OK(h, (unsigned)n) || h->nlmsg_type != NLMSG_ERROR) return -EPROTO;
  return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static int move_one(int sock, int nsfd, const char *host, const char *name, unsigned seq, crt_err **err) {
  unsigned idx = if_nametoindex(host);
  if (idx == 0) return crt_error(err, errno, "netDevices: host interface \"%s\"", host);
  struct req r;
  memset(&r, 0, sizeof r);
  r.nh.nlmsg_len = NLMSG_LENGTH(sizeof r.ifi);
  r.nh.nlmsg_type = RTM_NEWLINK;
  r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  r.nh.nlmsg_seq = seq;
  r.ifi.ifi_family = AF_UNSPEC;
  r.ifi.ifi_index = (int)idx;
  unsigned fd = (unsigned)nsfd;
  add_attr(&r, IFLA_NET_NS_FD, &fd, sizeof fd);
  if (*name) add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
  int rc = talk(sock, &r);
  if (rc < 0)
    return crt_error(err, -rc, "netDevices: move \"%s\" into the container as \"%s\"", host, *name ? name : host);
  return 0;
}

int crt_netdev_move(pid_t init, const crt_kvv *devs, crt_err **err) {
  if (!devs->len) return 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/net", (int)init);
  cleanup_close int nsfd = open(path, O_RDONLY | O_CLOEXEC);
  if (nsfd < 0) return crt_error(err, errno, "netDevices: open %s", path);
  cleanup_close int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (sock < 0) return crt_error(err, errno, "netDevices: netlink socket");
  for (size_t i = 0; i < devs->len; i++)
    if (move_one(sock, nsfd, devs->v[i].key, devs->v[i].value, (unsigned)i + 1, err) < 0) return -1;
  return 0;
}

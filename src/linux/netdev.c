#define _GNU_SOURCE
/* linux.netDevices: host interfaces moved into the container's network
 * namespace over rtnetlink, as config-linux.md asks: the new name is
 * checked in the container's namespace before anything moves (a refused
 * rename after the move would lose the device with the namespace), the
 * permanent global addresses are put back (the kernel drops addresses when
 * a device changes namespace), and the device is set up.  Nothing to undo
 * at delete: when the namespace goes, the kernel returns physical devices
 * to the host's and destroys virtual ones. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crt/netdev.h"

#define MAX_ADDRS 32
/* an attribute's address: IPv6 at most */
#define ADDR_MAX 16
/* The receive sizes: one answer to a request (an ack, a link) fits
 * NL_REPLY_MAX; a dump is read NL_DUMP_MAX at a time. */
#define NL_REPLY_MAX 8192
#define NL_DUMP_MAX 16384

/* What netlink messages are received into: read as struct nlmsghdr, so
 * aligned as one. */
#define NL_BUF(size)     \
  union {                \
    struct nlmsghdr h;   \
    char b[size];        \
  }

struct req {
  struct nlmsghdr nh;
  union {
    struct ifinfomsg ifi;
    struct ifaddrmsg ifa;
  };
  char attrs[256];
};

/* A permanent global address to restore: the ifaddrmsg and its attributes. */
struct saved_addr {
  struct ifaddrmsg ifa;
  unsigned char local[ADDR_MAX], address[ADDR_MAX], broadcast[ADDR_MAX];
  unsigned short n_local, n_address, n_broadcast;
};

static void req_init(struct req *r, unsigned short type, unsigned short flags, size_t body) {
  memset(r, 0, sizeof *r);
  r->nh.nlmsg_len = NLMSG_LENGTH(body);
  r->nh.nlmsg_type = type;
  r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
}

static void add_attr(struct req *r, unsigned short type, const void *data, size_t len) {
  struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));
  a->rta_type = type;
  a->rta_len = (unsigned short)RTA_LENGTH(len);
  memcpy(RTA_DATA(a), data, len);
  r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Sends one request; returns its acknowledgement (0 or -errno).  With
 * reply, a non-error answer (RTM_NEWLINK of a GETLINK) is copied there and
 * counts as 0. */
static int talk(int sock, struct req *r, struct req *reply) {
  if (send(sock, r, r->nh.nlmsg_len, 0) < 0) return -errno;
  NL_BUF(NL_REPLY_MAX) buf;
  ssize_t n = recv(sock, buf.b, sizeof buf.b, 0);
  if (n < 0) return -errno;
  struct nlmsghdr *h = &buf.h;
  if (!NLMSG_OK(h, (unsigned)n)) return -EPROTO;
  if (h->nlmsg_type == NLMSG_ERROR) return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
  if (!reply) return -EPROTO;
  memcpy(reply, buf.b, h->nlmsg_len < sizeof *reply ? h->nlmsg_len : sizeof *reply);
  return 0;
}

/* The index of interface `name` in the namespace of `sock`, or -errno. */
static int link_index(int sock, const char *name) {
  struct req r, reply;
  req_init(&r, RTM_GETLINK, 0, sizeof r.ifi);
  r.ifi.ifi_family = AF_UNSPEC;
  add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
  int rc = talk(sock, &r, &reply);
  if (rc < 0) return rc;
  return reply.nh.nlmsg_type == RTM_NEWLINK ? reply.ifi.ifi_index : -EPROTO;
}

static void keep_attr(unsigned char *dst, unsigned short *n, const struct rtattr *a) {
  size_t len = RTA_PAYLOAD(a);
  if (len > ADDR_MAX) return;
  memcpy(dst, RTA_DATA(a), len);
  *n = (unsigned short)len;
}

static void save_addr(const struct nlmsghdr *h, int index, struct saved_addr *v, size_t *n) {
  const struct ifaddrmsg *ifa = NLMSG_DATA(h);
  if ((int)ifa->ifa_index != index || ifa->ifa_scope != RT_SCOPE_UNIVERSE || *n == MAX_ADDRS) return;
  struct saved_addr s = {.ifa = *ifa};
  unsigned flags = ifa->ifa_flags;
  int len = (int)IFA_PAYLOAD(h);
  for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    if (a->rta_type == IFA_FLAGS && RTA_PAYLOAD(a) >= 4) memcpy(&flags, RTA_DATA(a), 4);
    if (a->rta_type == IFA_LOCAL) keep_attr(s.local, &s.n_local, a);
    if (a->rta_type == IFA_ADDRESS) keep_attr(s.address, &s.n_address, a);
    if (a->rta_type == IFA_BROADCAST) keep_attr(s.broadcast, &s.n_broadcast, a);
  }
  if (flags & IFA_F_PERMANENT) v[(*n)++] = s;
}

/* The permanent global addresses of interface `index` (host namespace). */
static int dump_addrs(int sock, int index, struct saved_addr *v, size_t *n) {
  struct req r;
  req_init(&r, RTM_GETADDR, NLM_F_DUMP, sizeof r.ifa);
  r.ifa.ifa_family = AF_UNSPEC;
  if (send(sock, &r, r.nh.nlmsg_len, 0) < 0) return -errno;
  NL_BUF(NL_DUMP_MAX) buf;
  for (;;) {
    ssize_t len = recv(sock, buf.b, sizeof buf.b, 0);
    if (len < 0) return -errno;
    for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (unsigned)len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == NLMSG_ERROR) return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
      if (h->nlmsg_type == RTM_NEWADDR) save_addr(h, index, v, n);
    }
  }
}

static int restore_addr(int sock, int index, const struct saved_addr *s) {
  struct req r;
  req_init(&r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, sizeof r.ifa);
  r.ifa = s->ifa;
  r.ifa.ifa_index = (unsigned)index;
  if (s->n_local) add_attr(&r, IFA_LOCAL, s->local, s->n_local);
  if (s->n_address) add_attr(&r, IFA_ADDRESS, s->address, s->n_address);
  if (s->n_broadcast) add_attr(&r, IFA_BROADCAST, s->broadcast, s->n_broadcast);
  return talk(sock, &r, NULL);
}

static int set_up(int sock, int index) {
  struct req r;
  req_init(&r, RTM_NEWLINK, NLM_F_ACK, sizeof r.ifi);
  r.ifi.ifi_family = AF_UNSPEC;
  r.ifi.ifi_index = index;
  r.ifi.ifi_flags = IFF_UP;
  r.ifi.ifi_change = IFF_UP;
  return talk(sock, &r, NULL);
}

static int move(int host, int nsfd, int index, const char *name) {
  struct req r;
  req_init(&r, RTM_NEWLINK, NLM_F_ACK, sizeof r.ifi);
  r.ifi.ifi_family = AF_UNSPEC;
  r.ifi.ifi_index = index;
  unsigned fd = (unsigned)nsfd;
  add_attr(&r, IFLA_NET_NS_FD, &fd, sizeof fd);
  if (*name) add_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
  return talk(host, &r, NULL);
}

typedef struct {
  int host, ctr, nsfd; /* netlink sockets in each namespace; the ns fd */
} links;

/* Where the moved device is in the container: by its new name, or, for a
 * kernel-chosen `%d` name, by its index, which the kernel keeps unless the
 * namespace already uses it (a fresh one has only lo). */
static int find_moved(const links *l, const char *name, int old_index) {
  if (!strchr(name, '%')) return link_index(l->ctr, name);
  struct req r, reply;
  req_init(&r, RTM_GETLINK, 0, sizeof r.ifi);
  r.ifi.ifi_family = AF_UNSPEC;
  r.ifi.ifi_index = old_index;
  int rc = talk(l->ctr, &r, &reply);
  return rc < 0 ? rc : reply.ifi.ifi_index;
}

static int move_one(const links *l, const char *host, const char *name, crt_err **err) {
  const char *final = *name ? name : host;
  int index = link_index(l->host, host);
  if (index < 0) return crt_error(err, -index, "netDevices: host interface \"%s\"", host);
  if (!strchr(final, '%') && link_index(l->ctr, final) >= 0)
    return crt_error(err, EEXIST, "netDevices: move \"%s\" into the container as \"%s\"", host, final);
  struct saved_addr addrs[MAX_ADDRS];
  size_t n = 0;
  int rc = dump_addrs(l->host, index, addrs, &n);
  if (rc < 0) return crt_error(err, -rc, "netDevices: addresses of \"%s\"", host);
  rc = move(l->host, l->nsfd, index, name);
  if (rc < 0) return crt_error(err, -rc, "netDevices: move \"%s\" into the container as \"%s\"", host, final);
  int now = find_moved(l, final, index);
  if (now < 0) return crt_error(err, -now, "netDevices: \"%s\" in the container", final);
  for (size_t i = 0; i < n; i++)
    if ((rc = restore_addr(l->ctr, now, &addrs[i])) < 0 && rc != -EEXIST)
      return crt_error(err, -rc, "netDevices: restore an address of \"%s\" in the container", final);
  if ((rc = set_up(l->ctr, now)) < 0) return crt_error(err, -rc, "netDevices: set \"%s\" up in the container", final);
  return 0;
}

/* A netlink socket in the namespace of nsfd: sockets keep the namespace
 * they were made in, so crt enters it only for the socket() call. */
static int socket_in(int nsfd, crt_err **err) {
  cleanup_close int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (self < 0) return crt_error(err, errno, "netDevices: open /proc/self/ns/net");
  if (setns(nsfd, CLONE_NEWNET) < 0) return crt_error(err, errno, "netDevices: enter the container's network namespace");
  int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  int saved = errno;
  if (setns(self, CLONE_NEWNET) < 0) {
    /* crt would go on in the wrong namespace: nothing sane is left to do */
    if (sock >= 0) close(sock);
    return crt_error(err, errno, "netDevices: return to the runtime's network namespace");
  }
  if (sock < 0) return crt_error(err, saved, "netDevices: netlink socket in the container");
  return sock;
}

int crt_netdev_move(pid_t init, const crt_kvv *devs, crt_err **err) {
  if (!devs->len) return 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/net", (int)init);
  cleanup_close int nsfd = open(path, O_RDONLY | O_CLOEXEC);
  if (nsfd < 0) return crt_error(err, errno, "netDevices: open %s", path);
  cleanup_close int host = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (host < 0) return crt_error(err, errno, "netDevices: netlink socket");
  cleanup_close int ctr = socket_in(nsfd, err);
  if (ctr < 0) return -1;
  links l = {.host = host, .ctr = ctr, .nsfd = nsfd};
  for (size_t i = 0; i < devs->len; i++)
    if (move_one(&l, devs->v[i].key, devs->v[i].value, err) < 0) return -1;
  return 0;
}

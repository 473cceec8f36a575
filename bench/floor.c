/* The same-work floor of `crt run` on crt spec's default config: only the
 * kernel work, none of a runtime's own (no JSON, no state files, no hooks,
 * no sync socket, no second process talking to the init).
 *
 *   floor ROOTFS NAME PROG [ARG...]
 *
 * makes a cgroup NAME in every hierarchy mounted on this host (v1, v2 or
 * both), clones a child into new pid, network, ipc, uts and mount
 * namespaces that joins them, mounts what the default config mounts
 * (proc, /dev tmpfs, devpts, shm, mqueue, sysfs, the cgroup hierarchies),
 * makes the /dev nodes and links, pivots into ROOTFS, masks and remounts
 * read-only the default config's paths, makes the root read-only, sets the
 * hostname, the NOFILE limit, no_new_privs and the three default
 * capabilities, and execs PROG; the parent waits for it and removes the
 * cgroups.  Its exit status is PROG's.  bench.py times it beside crt's
 * `run`, and t_bench checks that a container seen from inside looks the
 * same under both (mounts, /dev, capabilities, cgroups, limits, hostname).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HIER 16

struct hier {
	char mnt[256];     /* where the host mounts it */
	char name[64];     /* its directory under /sys/fs/cgroup inside */
	int v2;
};

static struct hier hiers[MAX_HIER];
static int nhiers;
static const char *cg_name;

static void die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	_exit(125);
}

/* The cgroup hierarchies mounted under /sys/fs/cgroup, from mountinfo. */
static void find_hierarchies(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024];
	if (!f)
		die("/proc/self/mountinfo");
	while (fgets(line, sizeof line, f) && nhiers < MAX_HIER) {
		char mnt[256], fstype[32];
		const char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mnt) != 1 || sscanf(sep + 3, "%31s", fstype) != 1)
			continue;
		int v2 = !strcmp(fstype, "cgroup2");
		if ((!v2 && strcmp(fstype, "cgroup")) || strncmp(mnt, "/sys/fs/cgroup", 14))
			continue;
		struct hier *h = &hiers[nhiers++];
		snprintf(h->mnt, sizeof h->mnt, "%s", mnt);
		const char *base = strrchr(mnt, '/') + 1;
		snprintf(h->name, sizeof h->name, "%s", v2 && !strcmp(mnt, "/sys/fs/cgroup") ? "" : base);
		h->v2 = v2;
	}
	fclose(f);
}

static void cg_path(char *buf, size_t n, const struct hier *h, const char *file)
{
	if ((size_t)snprintf(buf, n, "%s/%s%s%s", h->mnt, cg_name, file ? "/" : "", file ? file : "") >= n) {
		errno = ENAMETOOLONG;
		die(cg_name);
	}
}

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
}

/* A new v1 cpuset cgroup has no cpus and mems: every runtime copies its
 * parent's before a task may join. */
static void cpuset_inherit(const struct hier *h)
{
	static const char *files[] = {"cpuset.cpus", "cpuset.mems"};
	char from[512], to[512], val[256];
	for (int i = 0; i < 2; i++) {
		if ((size_t)snprintf(from, sizeof from, "%s/%s", h->mnt, files[i]) >= sizeof from)
			die(h->mnt);
		cg_path(to, sizeof to, h, files[i]);
		int fd = open(from, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, val, sizeof val - 1);
		if (n < 0)
			die(from);
		close(fd);
		val[n] = 0;
		write_file(to, val);
	}
}

static void mnt(const char *src, const char *dst, const char *type, unsigned long flags, const char *data)
{
	if (mount(src, dst, type, flags, data) < 0)
		die(dst);
}

static void mount_cgroups(void)
{
	char src[512], dst[512];
	int v1 = 0;
	for (int i = 0; i < nhiers; i++)
		v1 |= !hiers[i].v2;
	if (!v1) { /* pure v2: the container's own cgroup */
		cg_path(src, sizeof src, &hiers[0], NULL);
		mnt(src, "sys/fs/cgroup", NULL, MS_BIND, NULL);
		mnt(NULL, "sys/fs/cgroup", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
		return;
	}
	mnt("tmpfs", "sys/fs/cgroup", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, "mode=755");
	for (int i = 0; i < nhiers; i++) {
		if (hiers[i].v2) /* a hybrid host's unified hierarchy is not shown inside */
			continue;
		cg_path(src, sizeof src, &hiers[i], NULL);
		snprintf(dst, sizeof dst, "sys/fs/cgroup/%s", hiers[i].name);
		if (mkdir(dst, 0755) < 0)
			die(dst);
		mnt(src, dst, NULL, MS_BIND, NULL);
		mnt(NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, NULL);
	}
	mnt(NULL, "sys/fs/cgroup", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, NULL);
}

static void make_dev(void)
{
	static const struct { const char *name; int maj, min; } nodes[] = {
		{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};
	static const char *links[][2] = {{"/proc/self/fd", "dev/fd"}, {"/proc/self/fd/0", "dev/stdin"},
		{"/proc/self/fd/1", "dev/stdout"}, {"/proc/self/fd/2", "dev/stderr"}, {"pts/ptmx", "dev/ptmx"}};
	char p[64];
	umask(0);
	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
		snprintf(p, sizeof p, "dev/%s", nodes[i].name);
		if (mknod(p, S_IFCHR | 0666, makedev(nodes[i].maj, nodes[i].min)) < 0)
			die(p);
	}
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
		if (symlink(links[i][0], links[i][1]) < 0)
			die(links[i][1]);
	umask(022);
}

static void mount_all(const char *rootfs)
{
	mnt(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL);
	mnt(rootfs, rootfs, NULL, MS_BIND | MS_REC, NULL);
	if (chdir(rootfs) < 0)
		die(rootfs);
	mnt("proc", "proc", "proc", 0, NULL);
	mnt("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_STRICTATIME, "mode=755,size=65536k");
	mkdir("dev/pts", 0755);
	mkdir("dev/shm", 0755);
	mkdir("dev/mqueue", 0755);
	mnt("devpts", "dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620,gid=5");
	mnt("shm", "dev/shm", "tmpfs", MS_NOSUID | MS_NOEXEC | MS_NODEV, "mode=1777,size=65536k");
	mnt("mqueue", "dev/mqueue", "mqueue", MS_NOSUID | MS_NOEXEC | MS_NODEV, NULL);
	mnt("sysfs", "sys", "sysfs", MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RDONLY, NULL);
	mount_cgroups();
	make_dev();
}

static void pivot(void)
{
	int old = open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (old < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
		die("pivot_root");
	if (fchdir(old) < 0)
		die("fchdir");
	mnt(NULL, ".", NULL, MS_REC | MS_SLAVE, NULL);
	if (umount2(".", MNT_DETACH) < 0)
		die("umount old root");
	close(old);
	if (chdir("/") < 0)
		die("chdir /");
}

/* crt spec's maskedPaths and readonlyPaths; those that do not exist are
 * skipped, as the runtimes do.  Masked directories share one read-only
 * tmpfs, as crt's do. */
static void mask_and_protect(void)
{
	static const char *masked[] = {"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
		"/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
		"/sys/firmware", "/proc/scsi"};
	static const char *ro[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"};
	const char *dir_mask = NULL;
	struct stat st;
	for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) {
		if (stat(ro[i], &st) < 0)
			continue;
		mnt(ro[i], ro[i], NULL, MS_BIND | MS_REC, NULL);
		mnt(NULL, ro[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, NULL);
	}
	for (size_t i = 0; i < sizeof masked / sizeof masked[0]; i++) {
		if (stat(masked[i], &st) < 0)
			continue;
		if (!S_ISDIR(st.st_mode))
			mnt("/dev/null", masked[i], NULL, MS_BIND, NULL);
		else if (!dir_mask) {
			mnt("tmpfs", masked[i], "tmpfs", MS_RDONLY, NULL);
			dir_mask = masked[i];
		} else
			mnt(dir_mask, masked[i], NULL, MS_BIND, NULL);
	}
	mnt(NULL, "/", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}

static void drop_privileges(void)
{
	const unsigned long keep = (1UL << CAP_AUDIT_WRITE) | (1UL << CAP_KILL) | (1UL << CAP_NET_BIND_SERVICE);
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[2] = {{keep, keep, 0}, {0, 0, 0}};
	struct rlimit nofile = {1024, 1024};
	if (sethostname("runc", 4) < 0)
		die("sethostname");
	if (setrlimit(RLIMIT_NOFILE, &nofile) < 0)
		die("setrlimit");
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (!(keep & (1UL << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			die("PR_CAPBSET_DROP");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("no_new_privs");
	if (syscall(SYS_capset, &hdr, data) < 0)
		die("capset");
}

static int child(const char *rootfs, char **argv)
{
	char p[512];
	for (int i = 0; i < nhiers; i++) {
		cg_path(p, sizeof p, &hiers[i], hiers[i].v2 ? "cgroup.procs" : "tasks");
		write_file(p, "0");
	}
	mount_all(rootfs);
	pivot();
	mask_and_protect();
	drop_privileges();
	char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm", "HOME=/root", NULL};
	execvpe(argv[0], argv, envp);
	die(argv[0]);
	return 125;
}

int main(int argc, char **argv)
{
	char p[512];
	if (argc < 4) {
		fprintf(stderr, "usage: floor ROOTFS NAME PROG [ARG...]\n");
		return 2;
	}
	cg_name = argv[2];
	find_hierarchies();
	for (int i = 0; i < nhiers; i++) {
		cg_path(p, sizeof p, &hiers[i], NULL);
		if (mkdir(p, 0755) < 0)
			die(p);
		if (!hiers[i].v2 && !strcmp(hiers[i].name, "cpuset"))
			cpuset_inherit(&hiers[i]);
	}
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS | SIGCHLD, NULL);
	if (pid < 0)
		die("clone");
	if (pid == 0)
		_exit(child(argv[1], argv + 3));
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (int i = 0; i < nhiers; i++) {
		cg_path(p, sizeof p, &hiers[i], NULL);
		rmdir(p);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

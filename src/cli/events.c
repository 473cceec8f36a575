/* crt events: stats (runc's JSON field names) and OOM notifications. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crt/cgroup.h"
#include "crt/cli.h"
#include "crt/log.h"
#include "crt/ops.h"

/* Go's time.ParseDuration subset: "5s", "100ms", "1m30s", "1.5h". */
static int parse_duration(const char *s, long long *ms) {
  static const struct {
    const char *u;
    double ms;
  } units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"µs", 1e-3}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
  double total = 0;
  if (!*s) return -1;
  if (strcmp(s, "0") == 0) {
    *ms = 0;
    return 0;
  }
  while (*s) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    s = end;
    size_t best = 0, bi = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
      size_t l = strlen(units[i].u);
      if (strncmp(s, units[i].u, l) == 0 && l > best) best = l, bi = i;
    }
    if (!best) return -1;
    total += v * units[bi].ms;
    s += best;
  }
  *ms = (long long)total;
  return 0;
}

static void mem_entry(FILE *f, const char *name, unsigned long long usage, unsigned long long max,
                      unsigned long long limit, unsigned long long failcnt) {
  fprintf(f, "\"%s\":{\"limit\":%llu,\"usage\":%llu,\"max\":%llu,\"failcnt\":%llu}", name, limit, usage, max, failcnt);
}

static void io_list(FILE *f, const char *name, const crt_cgroup_blkio_entry *v, size_t n) {
  fprintf(f, "\"%s\":[", name);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%s{\"major\":%u,\"minor\":%u,\"op\":\"%s\",\"value\":%llu}", i ? "," : "", v[i].major, v[i].minor,
            v[i].op, v[i].value);
  fprintf(f, "]");
}

/* The "data" object of a stats event. */
static void stats_json(FILE *f, const crt_cgroup_stats *st) {
  fprintf(f, "{\"cpu\":{\"usage\":{\"total\":%llu,\"percpu\":[", st->cpu_total);
  for (size_t i = 0; i < st->n_percpu; i++) fprintf(f, "%s%llu", i ? "," : "", st->percpu[i]);
  fprintf(f, "],\"kernel\":%llu,\"user\":%llu},\"throttling\":{\"periods\":%llu,\"throttled_periods\":%llu,"
             "\"throttled_time\":%llu}},",
          st->cpu_kernel, st->cpu_user, st->throttle_periods, st->throttled_periods, st->throttled_time);
  fprintf(f, "\"memory\":{\"cache\":%llu,", st->mem_cache);
  mem_entry(f, "usage", st->mem_usage, st->mem_max, st->mem_limit, st->mem_failcnt);
  fputc(',', f);
  mem_entry(f, "swap", st->swap_usage, st->swap_max, st->swap_limit, st->swap_failcnt);
  fputc(',', f);
  mem_entry(f, "kernel", st->kernel_usage, st->kernel_max, st->kernel_limit, st->kernel_failcnt);
  fprintf(f, ",\"kernelTCP\":{\"limit\":0,\"usage\":0,\"failcnt\":0},\"raw\":{");
  for (size_t i = 0; i < st->n_mem_raw; i++) {
    char *k = crt_json_escape(st->mem_raw[i].name);
    fprintf(f, "%s\"%s\":%llu", i ? "," : "", k ? k : "", st->mem_raw[i].value);
    free(k);
  }
  fprintf(f, "}},\"pids\":{\"current\":%llu", st->pids_current);
  if (st->pids_limit) fprintf(f, ",\"limit\":%llu", st->pids_limit);
  fprintf(f, "},\"blkio\":{");
  io_list(f, "ioServiceBytesRecursive", st->io_bytes, st->n_io_bytes);
  fputc(',', f);
  io_list(f, "ioServicedRecursive", st->io_ios, st->n_io_ios);
  fprintf(f, "},\"hugetlb\":{");
  for (size_t i = 0; i < st->n_hugetlb; i++)
    fprintf(f, "%s\"%s\":{\"usage\":%llu,\"max\":%llu,\"failcnt\":%llu}", i ? "," : "", st->hugetlb[i].pagesize,
            st->hugetlb[i].usage, st->hugetlb[i].max, st->hugetlb[i].failcnt);
  fprintf(f, "},\"intel_rdt\":{},\"network_interfaces\":null}");
}

static int print_stats(const crt_watch *w, crt_err **err) {
  crt_cgroup_stats st;
  if (crt_watch_stats(w, &st, err) < 0) return -1;
  cleanup_free char *eid = crt_json_escape(w->id);
  printf("{\"type\":\"stats\",\"id\":\"%s\",\"data\":", eid ? eid : "");
  stats_json(stdout, &st);
  printf("}\n");
  fflush(stdout);
  crt_cgroup_stats_free(&st);
  return 0;
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Stats every interval and OOM events as they come, until the container stops. */
static int stream(crt_watch *w, long long interval, crt_err **err) {
  cleanup_free char *eid = crt_json_escape(w->id);
  long long next = now_ms();
  while (crt_watch_running(w)) {
    long long t = now_ms();
    if (interval > 0 && t >= next) {
      if (print_stats(w, err) < 0) return -1;
      next = t + interval;
    }
    int timeout = interval > 0 ? (int)(next - t > 1000 ? 1000 : next - t) : 1000;
    struct pollfd p = {w->oom_fd, POLLIN, 0};
    int n = w->oom_fd >= 0 ? poll(&p, 1, timeout < 0 ? 0 : timeout) : (usleep((useconds_t)timeout * 1000), 0);
    if (n > 0 && crt_watch_oom(w) > 0) {
      printf("{\"type\":\"oom\",\"id\":\"%s\"}\n", eid ? eid : "");
      fflush(stdout);
    }
  }
  return 0;
}

/* runc's --interval default: 5s */
#define EVENTS_INTERVAL_MS 5000

int crt_cmd_events(int argc, char **argv) {
  static const struct option opts[] = {{"interval", required_argument, NULL, 'i'},
                                       {"stats", no_argument, NULL, 's'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  long long interval = EVENTS_INTERVAL_MS;
  bool stats = false;
  crt_operands ops = {0};
  int c;
  while ((c = crt_getopt(argc, argv, "-h", opts, argv[0])) != -1) {
    if (c == 1) {
      crt_operand_add(&ops, optarg);
    } else if (c == 'i') {
      if (parse_duration(optarg, &interval) < 0)
        return crt_usage_error(argv[0], "invalid value \"%s\" for flag --interval: invalid duration", optarg);
    } else if (c == 's') {
      stats = true;
    } else if (c == 'h') {
      crt_help_command(stdout, argv[0]);
      return 0;
    } else {
      return 1;
    }
  }
  if (crt_operands_end(&ops, argc, argv, 1, 1, "1 argument") < 0) return 1;
  const char *id = ops.arg[0];
  cleanup_err crt_err *err = NULL;
  crt_watch w;
  if (crt_container_watch(crt_g.root, id, !stats, &w, &err) < 0) return crt_fail(err);
  int rc = stats ? print_stats(&w, &err) : stream(&w, interval, &err);
  crt_watch_release(&w);
  return rc < 0 ? crt_fail(err) : 0;
}

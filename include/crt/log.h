/* Logging compatible with runc: text to stderr, and with --log FILE
 * --log-format json one {"level":..,"msg":..,"time":..} object per line,
 * which containerd's shim reads to report errors. */
#ifndef CRT_LOG_H
#define CRT_LOG_H

#include <stdbool.h>

enum crt_log_level { CRT_LOG_DEBUG, CRT_LOG_INFO, CRT_LOG_WARN, CRT_LOG_ERROR };

/* path NULL: log to stderr only.  json: runc's JSON lines. */
int crt_log_init(const char *path, bool json, bool debug);
bool crt_log_debug_enabled(void);

void crt_log(enum crt_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define crt_debug(...) crt_log(CRT_LOG_DEBUG, __VA_ARGS__)
#define crt_info(...) crt_log(CRT_LOG_INFO, __VA_ARGS__)
#define crt_warn(...) crt_log(CRT_LOG_WARN, __VA_ARGS__)

/* --debug stage timings: where create, start and exec spend their time.
 * Each command keeps a crt_stages; CRT_STAGE logs "CMD: stage NAME took
 * X.XXXms" (the time since the previous stage) at debug level, and
 * CRT_STAGES_TOTAL "CMD: all stages took X.XXXms".  Both test the debug
 * flag first: without --debug no clock is read. */
typedef struct {
  const char *cmd;
  long long t0, last; /* CLOCK_MONOTONIC, ns */
} crt_stages;
void crt_stages_begin_(crt_stages *st, const char *cmd);
void crt_stage_(crt_stages *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void crt_stages_total_(const crt_stages *st);
#define CRT_STAGES_BEGIN(st, cmd) \
  do { \
    if (crt_log_debug_enabled()) crt_stages_begin_((st), (cmd)); \
  } while (0)
#define CRT_STAGE(st, ...) \
  do { \
    if (crt_log_debug_enabled()) crt_stage_((st), __VA_ARGS__); \
  } while (0)
#define CRT_STAGES_TOTAL(st) \
  do { \
    if (crt_log_debug_enabled()) crt_stages_total_(st); \
  } while (0)

/* In create's init with --debug: its log lines go to a private copy of the
 * log destination (the --log file or create's stderr), so that they do not
 * follow stderr onto the container's terminal; crt_log_release closes the
 * copy before the init reports READY, so nothing of create's stderr
 * outlives create.  hold returns the previous fd for release.  Both do
 * nothing without --debug. */
int crt_log_hold(void);
void crt_log_release(int prev);
/* No more log lines from this process: the log file closed (a process
 * about to enter a container's pid namespace must not hold a host file). */
void crt_log_detach(void);

/* In a process that becomes the container's (create's init, exec's
 * process): warnings and errors go to sink (with arg) instead of the log
 * destination, whose stderr is the container's own by then (its terminal,
 * or buildah's pipe).  The sink hands them to the runtime, which writes
 * them to its log (crt_sync_log_to in src/container/sync.c), as runc's
 * init sends its lines to the parent over its log pipe.  NULL: none. */
typedef void crt_log_sink(void *arg, enum crt_log_level lvl, const char *msg);
void crt_log_set_sink(crt_log_sink *sink, void *arg);

/* Writes a fatal error as runc does: "crt: msg" on stderr (text), and an
 * error line in the log file. */
void crt_log_error_msg(const char *msg);

/* JSON string escaping into a malloc'd buffer (quotes not included). */
char *crt_json_escape(const char *s);

#endif

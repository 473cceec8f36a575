/* Logging compatible with runc: text to stderr, and with --log FILE
 * --log-format json one {"level":..,"msg":..,"time":..} object per line,
 * which containerd's shim reads to report errors. */
#ifndef CRT_LOG_H
#define CRT_LOG_H

#include <stdbool.h>

enum crt_log_level { CRT_LOG_DEBUG, CRT_LOG_INFO, CRT_LOG_WARN, CRT_LOG_ERROR };

/* path NULL: log to stderr only.  json: runc's JSON lines. */
int crt_log_init(const char *path, bool json, bool debug);
void crt_log_set_fd(int fd); /* used by the child to inherit the log fd */
int crt_log_fd(void);
bool crt_log_json(void);
bool crt_log_debug_enabled(void);

void crt_log(enum crt_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define crt_debug(...) crt_log(CRT_LOG_DEBUG, __VA_ARGS__)
#define crt_info(...) crt_log(CRT_LOG_INFO, __VA_ARGS__)
#define crt_warn(...) crt_log(CRT_LOG_WARN, __VA_ARGS__)

/* Writes a fatal error as runc does: "crt: msg" on stderr (text), and an
 * error line in the log file. */
void crt_log_error_msg(const char *msg);

/* JSON string escaping into a malloc'd buffer (quotes not included). */
char *crt_json_escape(const char *s);

#endif

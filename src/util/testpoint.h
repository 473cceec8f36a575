/* Named pause points for the crash-consistency tests, compiled only into
 * the test build (build/crt-testpoints, -DCRT_TEST_POINTS): with
 * CRT_TEST_PAUSE=NAME the process stops for good at crt_test_point(NAME),
 * after writing "PID NAME" to $CRT_TEST_PAUSE_FILE, so that a test can
 * SIGKILL it exactly there.  In ./crt the calls compile to nothing.  A
 * test hook, so not in include/crt/ (tests/lint/test_only.py): code of
 * every layer includes it by path, "../util/testpoint.h". */
#ifndef CRT_TESTPOINT_H
#define CRT_TESTPOINT_H

#ifdef CRT_TEST_POINTS
void crt_test_point(const char *name);
#else
#define crt_test_point(name) ((void)0)
#endif

#endif

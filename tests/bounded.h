/* bounded.h: runs a loader in a child process whose address space is capped
 * (setrlimit RLIMIT_AS), so that a test asserts that a hostile file costs at
 * most that much memory: a loader that allocates for a declared size before
 * checking it gets NULL (or std::bad_alloc) or is killed, and the child's
 * error sentence then differs from the one expected.
 *
 * bounded_run(fn, arg, cap_bytes, out, out_size): fn(arg, msg, size) runs in
 * the child and returns its status; the child sends back the status and msg.
 * Returns 0 and fills *status and out when the child exited normally, -1 when
 * it died (signal) or could not be started. Under AddressSanitizer, which
 * reserves terabytes of shadow memory, the cap cannot be applied: fn runs
 * capped only by ASan's own allocator limit (allocator_may_return_null is not
 * assumed), and bounded_capped() says 0 so the test can say so. */
#ifndef MOREAU_TEST_BOUNDED_H
#define MOREAU_TEST_BOUNDED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define BOUNDED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BOUNDED_ASAN 1
#endif
#endif
#ifndef BOUNDED_ASAN
#define BOUNDED_ASAN 0
#endif

typedef int (*bounded_fn)(void *arg, char *msg, size_t msg_size);

static inline int bounded_capped(void) { return !BOUNDED_ASAN; }

static inline int bounded_run(bounded_fn fn, void *arg, size_t cap_bytes, int *status, char *out, size_t out_size)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        if (!BOUNDED_ASAN) {
            struct rlimit rl = {(rlim_t)cap_bytes, (rlim_t)cap_bytes};
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
        }
        char msg[2048] = "";
        int st = fn(arg, msg, sizeof msg);
        ssize_t w = write(fd[1], &st, sizeof st);
        w += write(fd[1], msg, strlen(msg) + 1);
        (void)w;
        close(fd[1]);
        _exit(0);
    }
    close(fd[1]);
    char buf[2048 + sizeof(int)];
    size_t got = 0;
    ssize_t r;
    while (got < sizeof buf && (r = read(fd[0], buf + got, sizeof buf - got)) > 0) got += (size_t)r;
    close(fd[0]);
    int ws = 0;
    if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || got < sizeof(int) + 1) return -1;
    memcpy(status, buf, sizeof(int));
    size_t n = got - sizeof(int);
    if (n >= out_size) n = out_size - 1;
    memcpy(out, buf + sizeof(int), n);
    out[n] = '\0';
    return 0;
}

#endif

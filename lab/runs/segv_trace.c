// LD_PRELOAD: on SIGSEGV/SIGBUS/SIGABRT, print the faulting thread's name and a backtrace
// (library + offset), then re-raise with the default action.
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <stdio.h>
static void handler(int sig, siginfo_t *si, void *uc) {
    char name[32] = {0};
    prctl(PR_GET_NAME, name, 0, 0, 0);
    char buf[160];
    int n = snprintf(buf, sizeof buf, "\n=== segv_trace: signal %d in thread '%s' (tid %ld) addr %p\n",
                     sig, name, (long)gettid(), si ? si->si_addr : 0);
    write(2, buf, n);
    void *frames[48];
    int k = backtrace(frames, 48);
    backtrace_symbols_fd(frames, k, 2);
    signal(sig, SIG_DFL);
    raise(sig);
}
__attribute__((constructor)) static void init(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, 0);
    sigaction(SIGBUS, &sa, 0);
    sigaction(SIGABRT, &sa, 0);
}

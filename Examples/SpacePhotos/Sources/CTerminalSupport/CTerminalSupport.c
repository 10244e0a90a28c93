#define _XOPEN_SOURCE 700
#include "CTerminalSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

int baseline_terminal_wcwidth(uint32_t scalar) {
    return wcwidth((wchar_t)scalar);
}

enum { leave_capacity = 256 };
static const int crash_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE };
enum { crash_signal_count = sizeof(crash_signals) / sizeof(crash_signals[0]) };

// Written only by arm/disarm, which the terminal layer calls from one place
// (entering and leaving the terminal); read by the handler.
static volatile sig_atomic_t armed = 0;
static int restore_fd = -1;   // the terminal whose modes were saved
static int leave_fd = -1;     // where the leave sequence goes
static struct termios restore_termios;
static char leave_bytes[leave_capacity];
static size_t leave_length = 0;
static struct sigaction previous_actions[crash_signal_count];

static void restore_then_pass_on(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    if (armed) {
        armed = 0;
        size_t written = 0;
        while (written < leave_length) {
            ssize_t result = write(leave_fd, leave_bytes + written, leave_length - written);
            if (result <= 0) break;
            written += (size_t)result;
        }
        tcsetattr(restore_fd, TCSANOW, &restore_termios);
    }
    // Hand the signal to whoever had it before (Swift's backtracer, or the
    // default action), so the crash report and the exit status are theirs.
    for (int i = 0; i < crash_signal_count; i++) {
        if (crash_signals[i] == signal_number) sigaction(signal_number, &previous_actions[i], NULL);
    }
    // A fault (a trap instruction, a bad access) happens again when the
    // handler returns, now with its original details; a signal that was
    // sent (kill, raise, abort) is sent again. Linux marks sent signals with
    // codes <= 0; other systems with SI_USER and SI_QUEUE.
    int sent = info == NULL || info->si_code <= 0;
#ifdef SI_USER
    sent = sent || info->si_code == SI_USER;
#endif
#ifdef SI_QUEUE
    sent = sent || info->si_code == SI_QUEUE;
#endif
    if (sent) raise(signal_number);
}

int baseline_terminal_arm_crash_restore(int terminal_fd, int output_fd, const struct termios *saved, const char *leave, size_t length) {
    if (length > leave_capacity) return -1;
    baseline_terminal_disarm_crash_restore();
    restore_fd = terminal_fd;
    leave_fd = output_fd;
    restore_termios = *saved;
    memcpy(leave_bytes, leave, length);
    leave_length = length;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = restore_then_pass_on;
    sigemptyset(&action.sa_mask);
    // SA_NODEFER: a signal raised again inside the handler is delivered at
    // once. SA_ONSTACK: a stack overflow's SIGSEGV runs on the alternate
    // stack Swift's runtime sets up for its own crash handler.
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    armed = 1;
    for (int i = 0; i < crash_signal_count; i++) {
        sigaction(crash_signals[i], &action, &previous_actions[i]);
    }
    return 0;
}

void baseline_terminal_disarm_crash_restore(void) {
    if (restore_fd < 0) return;
    armed = 0;
    for (int i = 0; i < crash_signal_count; i++) {
        sigaction(crash_signals[i], &previous_actions[i], NULL);
    }
    restore_fd = -1;
}

int baseline_terminal_open_pseudo_terminal(int *leader, int *follower) {
    int first = posix_openpt(O_RDWR | O_NOCTTY);
    if (first < 0) return -1;
    if (grantpt(first) != 0 || unlockpt(first) != 0) {
        int saved = errno;
        close(first);
        errno = saved;
        return -1;
    }
    const char *name = ptsname(first);
    int second = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (second < 0) {
        int saved = errno;
        close(first);
        errno = saved;
        return -1;
    }
    *leader = first;
    *follower = second;
    return 0;
}

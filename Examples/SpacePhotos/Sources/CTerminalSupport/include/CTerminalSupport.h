#ifndef BASELINE_TERMINAL_SUPPORT_H
#define BASELINE_TERMINAL_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <termios.h>

// The two pieces of the terminal layer that Swift cannot write itself.

/// The number of columns `scalar` takes in a terminal, from the C library's
/// `wcwidth` (which Swift's Glibc module does not export): 0 for combining
/// marks, 2 for East Asian wide characters, -1 for control characters.
/// Locale-dependent: the process's LC_CTYPE must be a UTF-8 locale.
int baseline_terminal_wcwidth(uint32_t scalar);

/// Arms the crash handlers: on SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS or
/// SIGFPE (a Swift trap arrives as SIGILL on x86-64 and SIGTRAP on arm64) the
/// handler writes `leave` (`length` bytes) to `output_fd`, restores `saved`
/// on `terminal_fd` (the terminal they were read from) with tcsetattr, then hands the signal to the handler that was there
/// before (Swift's backtracer, or the default action), so the exit status
/// and the crash report stay what they would be.
///
/// The handler only calls async-signal-safe functions (write, tcsetattr,
/// sigaction, raise) on copies made here, so it may run at any moment.
/// Returns 0, or -1 when `length` is larger than the handler's buffer (256).
int baseline_terminal_arm_crash_restore(int terminal_fd, int output_fd, const struct termios *saved, const char *leave, size_t length);

/// Puts back the handlers that were in place before arming. Idempotent.
void baseline_terminal_disarm_crash_restore(void);

/// Opens a pseudo-terminal pair (posix_openpt, grantpt, unlockpt, then the
/// follower by name), for code that must talk to a real terminal without
/// one, such as tests typing into a `TerminalSession`. Returns 0 with both
/// descriptors set, or -1 with errno set and nothing left open.
int baseline_terminal_open_pseudo_terminal(int *leader, int *follower);

#endif

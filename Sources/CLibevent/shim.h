#ifndef CLIBEVENT_SHIM_H
#define CLIBEVENT_SHIM_H

/* libevent's event-config.h defines _GNU_SOURCE before it includes the C library's headers, which turns on
   glibc's XOPEN names (fd_set.fds_bits instead of __fds_bits). Swift's Glibc module is built without it, so
   the same struct would be defined twice, differently, and importing both modules fails. Including the C
   library's headers first fixes glibc's feature set (features.h is read once) to the one Swift uses. */
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <event2/bufferevent.h>

/// `evsignal_new` is a function-like macro that Swift cannot import.
static inline struct event *CLibevent_evsignal_new(struct event_base *base, int signum,
                                                   event_callback_fn cb, void *arg) {
    return evsignal_new(base, signum, cb, arg);
}

/// `evtimer_new` is a function-like macro that Swift cannot import.
static inline struct event *CLibevent_evtimer_new(struct event_base *base,
                                                  event_callback_fn cb, void *arg) {
    return evtimer_new(base, cb, arg);
}

/// `evsignal_add` is a function-like macro that Swift cannot import.
static inline int CLibevent_evsignal_add(struct event *ev, const struct timeval *tv) {
    return evsignal_add(ev, tv);
}

#endif

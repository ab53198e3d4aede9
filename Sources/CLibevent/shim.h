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
#include <stdlib.h>
#include <string.h>

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

/// Appends the field `key: value` to an evhttp header list without evhttp's checks, taking ownership of `value`,
/// which must come from `malloc` (the list frees it with the request, as it frees its own entries; libevent's
/// default allocator is `malloc`). The caller has checked both strings: `value` may carry further, already
/// checked `\r\nName: value` lines, which evhttp then prints with this one entry.
/// Returns 0, or -1 when out of memory (`value` is freed then).
static inline int CLibevent_evkeyvalq_append_owned(struct evkeyvalq *headers, const char *key, char *value) {
    struct evkeyval *field = (struct evkeyval *)calloc(1, sizeof(struct evkeyval));
    char *name = strdup(key);
    if (field == NULL || name == NULL) {
        free(field);
        free(name);
        free(value);
        return -1;
    }
    field->key = name;
    field->value = value;
    /* TAILQ_INSERT_TAIL, spelled out: keyvalq_struct.h defines the list types but not the macros. */
    field->next.tqe_next = NULL;
    field->next.tqe_prev = headers->tqh_last;
    *headers->tqh_last = field;
    headers->tqh_last = &field->next.tqe_next;
    return 0;
}

#endif

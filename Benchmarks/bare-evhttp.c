/*
 * The floor for Benchmarks/http-vs-nginx.sh: bare libevent evhttp serving the same bytes as
 * http-bench-server, with nothing on top (no router, limits, metrics or logging).
 * It uses what the spike found cheapest, as the layer does: the epoll changelist, and no evthread locks (the
 * layer hands cross-thread replies to its loop through a pipe, so libevent runs without locks).
 *
 * Usage: bare-evhttp PORT PLAIN_FILE GZIP_FILE
 */
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct body {
    char *bytes;
    size_t length;
};

static struct body plain, gzipped;

static int load(const char *path, struct body *out) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    out->bytes = malloc((size_t)size);
    out->length = fread(out->bytes, 1, (size_t)size, file);
    fclose(file);
    return 0;
}

static void serve(struct evhttp_request *req, void *arg) {
    (void)arg;
    struct evkeyvalq *out = evhttp_request_get_output_headers(req);
    const char *accept = evhttp_find_header(evhttp_request_get_input_headers(req), "Accept-Encoding");
    const struct body *body = &plain;
    if (accept && strstr(accept, "gzip")) {
        body = &gzipped;
        evhttp_add_header(out, "Content-Encoding", "gzip");
    }
    evhttp_add_header(out, "Content-Type", "application/json");
    evhttp_add_header(out, "Vary", "Accept-Encoding");
    evbuffer_add_reference(evhttp_request_get_output_buffer(req), body->bytes, body->length, NULL, NULL);
    evhttp_send_reply(req, 200, "OK", NULL);
}

int main(int argc, char **argv) {
    if (argc < 4 || load(argv[2], &plain) || load(argv[3], &gzipped)) {
        fprintf(stderr, "usage: bare-evhttp PORT PLAIN_FILE GZIP_FILE\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct event_config *config = event_config_new();
    event_config_set_flag(config, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
    struct event_base *base = event_base_new_with_config(config);
    event_config_free(config);
    struct evhttp *http = evhttp_new(base);
    evhttp_set_gencb(http, serve, NULL);
    if (evhttp_bind_socket(http, "127.0.0.1", (unsigned short)atoi(argv[1])) != 0) {
        fprintf(stderr, "bind failed\n");
        return 1;
    }
    event_base_dispatch(base);
    return 0;
}

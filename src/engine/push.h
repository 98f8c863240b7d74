/*
 * Pushing metrics to a Prometheus Pushgateway, for `export --push` and
 * `load --push`: one group per benchmark and machine, its grouping key
 * job="yardstick", benchmark and machine, each value base64url-encoded
 * (the gateway's "@base64" form, so that slashes and empty values pass).
 */
#ifndef YS_ENGINE_PUSH_H
#define YS_ENGINE_PUSH_H

#include <stddef.h>

#include "util/error.h"

/* Seconds a push may take before it fails. */
#define PUSH_TIMEOUT 10.0

/*
 * Replace (PUT) the group of benchmark, machine and segment (NULL: none;
 * `load --segment`'s "I/N", so that segments on one machine keep a group
 * each) at the gateway url with body, in the text format 0.0.4. Returns
 * 0, or -1 with a message naming the URL and why: unreachable, or the
 * status and the first line of the gateway's answer.
 */
int push_group(const char *url, const char *benchmark, const char *machine,
	       const char *segment, const char *body, size_t len,
	       struct error *e);

/* Whether url can be a gateway's: 0, or -1 with the reason (no http://
 * or https://, no host, a bad port), so that a command refuses it as bad
 * usage before it measures or reads anything. */
int push_check_url(const char *url, struct error *e);


#endif

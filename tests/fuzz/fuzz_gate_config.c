/*
 * libFuzzer target of gate's configuration file (src/engine/gate_config.c,
 * the [gate] sections of yardstick.ini, read by inih): any bytes, as
 * the file --config names, either give thresholds that each have a
 * metric and a finite value (a pattern, when there is one, non-empty),
 * and settings within their bounds, or fail with a message that names
 * the file or its line.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/gate_config.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gate_config c = { 0 };
	struct error e;
	char path[64];
	int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	gate_config_init(&c);
	c.path = path;
	if (gate_config_read(&c, &e)) {
		if (!strstr(e.msg, path)) {
			fprintf(stderr, "the message names no file: %s\n",
				e.msg);
			abort();
		}
	} else {
		if (!(c.alpha > 0 && c.alpha < 1) || c.inconclusive_pass > 1 ||
		    c.missing_pass > 1 || c.correction > JUDGE_NO_CORRECTION)
			abort();
		for (size_t i = 0; i < c.nt; i++)
			if (!c.t[i].metric || !c.t[i].metric[0] ||
			    !isfinite(c.t[i].value) ||
			    (c.t[i].pattern && !c.t[i].pattern[0]))
				abort();
	}
	gate_config_free(&c);
	close(fd);
	return 0;
}

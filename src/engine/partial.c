/* The setting "partial" of a result collected up to a stop signal
 * (partial.h). */
#include "engine/partial.h"

#include <stdio.h>

#include "util/stop.h"

void result_mark_partial(struct result *res)
{
	char what[64];

	if (!stop_signal())
		return;
	snprintf(what, sizeof(what), "stopped by %s", stop_signal_name());
	result_set_str(res, "partial", what);
}

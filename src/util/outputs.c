/* Which output writes to stdout (outputs.h). */
#include "util/outputs.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool output_is_stdout(const char *path)
{
	struct stat a, b;

	if (!path)
		return false;
	if (!strcmp(path, "-"))
		return true;
	return !fstat(STDOUT_FILENO, &a) && !stat(path, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int outputs_on_stdout(const struct output_ref *v, size_t n, struct error *e)
{
	int first = -1;

	for (size_t i = 0; i < n; i++) {
		if (!output_is_stdout(v[i].path))
			continue;
		if (first >= 0) {
			bool a = !strcmp(v[first].path, "-");
			bool b = !strcmp(v[i].path, "-");

			/* "--json - and --csv -", or the paths quoted */
			error_set(e, "%s %s%s%s and %s %s%s%s both want stdout",
				  v[first].flag, a ? "" : "'", v[first].path,
				  a ? "" : "'", v[i].flag, b ? "" : "'",
				  v[i].path, b ? "" : "'");
			return -2;
		}
		first = (int)i;
	}
	return first;
}

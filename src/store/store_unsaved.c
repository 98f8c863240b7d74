/*
 * Saving without losing a measurement: a store checked before the first
 * run (store_check_save), a result a save could not keep written to a
 * file instead (store_keep_unsaved), and such a file saved later
 * (store_add, by `yardstick store copy FILE.json STORE`).
 */
#include "store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/strutil.h"

int store_check_save(const char *path, struct error *e)
{
	struct store *s;
	int ret;

	/* a file's checks cost nothing at save time, and what fails there
	 * is kept (store_keep_unsaved): only a server is worth a call */
	if (!store_is_pg(path))
		return 0;
	ret = store_open(&s, path, STORE_CREATE, e);
	if (!ret && s->be->check_write)
		ret = s->be->check_write(s, e);
	store_close(s);
	return ret;
}

/* Where the results the store at path could not keep go: unsaved/ beside
 * a store file, or beside the local store (.yardstick/, store.h) for a
 * server; its directory checked as a store's would be
 * (store_prepare_dir: no other user's symlink on the way, a directory of
 * a trusted owner that not every user may write; the store file's own
 * mode is no matter here): nothing is written where another user could
 * read or plant it, nor beside what is no store file (/dev/null).
 * malloc'd, or NULL with e set. */
static char *unsaved_dir(const char *path, struct error *e)
{
	char *local = store_is_pg(path) ? store_local_dir(e) : NULL;
	char *store = local ? xasprintf("%s/results.db", local) :
		      store_is_pg(path) ? NULL : xstrdup(path);
	char *dir = store ? store_dir_of(store) : NULL, *unsaved = NULL;

	if (store && !store_prepare_dir(store, e))
		unsaved = xasprintf("%s/unsaved", dir);
	free(local);
	free(store);
	free(dir);
	return unsaved;
}

int store_keep_unsaved(const char *path, const struct result *r,
		       char **kept, struct error *e)
{
	char *dir = unsaved_dir(path, e), stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	*kept = NULL;
	if (!dir)
		return -STORE_ERR_IO;
	if (!gmtime_r(&now, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	/* the time and the process: no two commands pick one name */
	*kept = xasprintf("%s/%s-%ld.json", dir, stamp, (long)getpid());
	free(dir);
	/* unsaved/ made, and checked as the store's directory was */
	ret = store_prepare_path(*kept, STORE_CREATE, NULL, e);
	if (!ret && result_write_json(r, *kept, e))
		ret = -STORE_ERR_IO;
	if (ret) {
		free(*kept);
		*kept = NULL;
	}
	return ret;
}

int store_add(struct store *s, const struct result *r, long long *id,
	      bool *dup, struct error *e)
{
	return s->be->save(s, r, NULL, 0, true, id, dup, e);
}

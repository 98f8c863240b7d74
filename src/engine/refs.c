/* Loading a result set from a file or from the store by reference. */
#include "engine/refs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/gate_config.h"
#include "store/store.h"
#include "util/strutil.h"

/* True when ref names the store rather than a file. */
static bool ref_is_store(const char *ref)
{
	struct stat st;
	const char *p;

	if (stat(ref, &st) == 0)
		return false;		/* a file of that name wins */
	if (!strcmp(ref, "latest") || ref[0] == '@' ||
	    !strncmp(ref, "branch:", 7))
		return true;
	for (p = ref; *p && isdigit((unsigned char)*p); p++)
		;
	return p != ref && !*p;
}

int ref_store_path(const char *store, char **path, struct error *e)
{
	const char *env = getenv("YARDSTICK_STORE");

	*path = NULL;
	if (store) {
		*path = xstrdup(store);
		return 0;
	}
	if (!(env && *env) && config_store(path, e))
		return -STORE_ERR_BADREF;
	if (!*path)
		*path = store_default_path(e);
	return *path ? 0 : -STORE_ERR_UNSAFE;
}

void ref_store_warning(const char *msg)
{
	fprintf(stderr, "yardstick: warning: %s\n", msg);
}

int ref_open_store(struct store **s, const char *store_path,
		   enum store_mode mode, char **path, struct error *e)
{
	int ret;

	*s = NULL;
	store_set_warn(ref_store_warning);
	ret = ref_store_path(store_path, path, e);
	if (ret)
		return ret;
	return store_open(s, *path, mode, e);
}

static int load(const char *ref, const char *store_path, bool raw,
		struct result *r, struct error *e)
{
	struct store *s;
	char *path;
	int ret;

	if (!ref_is_store(ref))
		return result_read_json_raw(r, ref, raw, e) ? -1 : 0;
	ret = ref_open_store(&s, store_path, STORE_READ, &path, e);
	free(path);
	if (ret)
		return -1;
	ret = store_load_ref(s, ref, r, e);
	store_close(s);
	if (ret)
		result_free(r);	/* the store leaves an empty result */
	return ret ? -1 : 0;
}

int ref_load(const char *ref, const char *store_path, struct result *r,
	     struct error *e)
{
	return load(ref, store_path, false, r, e);
}

int ref_load_values(const char *ref, const char *store_path,
		    struct result *r, struct error *e)
{
	return load(ref, store_path, true, r, e);
}

/*
 * libFuzzer target of the reading of a repository's HEAD without git
 * (src/util/gitdir.c): every file there may have been planted by another
 * user. The input is three files split at NUL bytes: .git/HEAD,
 * .git/packed-refs and the loose ref .git/refs/heads/main (which may
 * point on: a loop). Either HEAD gives a commit that is only ever a
 * lower-case hexadecimal object name of 40 or 64 digits (or none) and a
 * branch that is a valid ref name under refs/heads/ (or none), or it
 * fails with a message naming the file.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/gitdir.h"
#include "util/strutil.h"

static char dir[] = "/tmp/ys-fuzz-gitdir-XXXXXX";
static bool made;	/* (mkdtemp's name may end in X too) */

static void remove_all(void)
{
	static const char *const files[] = {
		".git/HEAD", ".git/packed-refs", ".git/refs/heads/main",
		".git/refs/heads", ".git/refs", ".git",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);

		if (unlink(p))
			rmdir(p);
		free(p);
	}
	rmdir(dir);
}

static void put(const char *rel, const uint8_t *data, size_t n)
{
	char *p = xasprintf("%s/%s", dir, rel);
	FILE *fp = fopen(p, "w");

	if (!fp || (n && fwrite(data, 1, n, fp) != n) || fclose(fp))
		abort();
	free(p);
}

static bool is_oid(const char *s)
{
	size_t len = strlen(s);

	if (len != 40 && len != 64)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *part[3] = { data, NULL, NULL };
	size_t len[3] = { size, 0, 0 };
	struct gitdir g;
	char *commit, *branch, *ref;
	struct error e;

	if (!made) {
		char *p;

		if (!mkdtemp(dir))
			abort();
		made = true;
		atexit(remove_all);
		p = xasprintf("%s/.git/refs/heads", dir);
		for (char *s = p + sizeof(dir); (s = strchr(s, '/')); s++) {
			*s = '\0';
			mkdir(p, 0700);
			*s = '/';
		}
		mkdir(p, 0700);
		free(p);
	}
	for (int i = 0; i < 2; i++) {
		const uint8_t *nul = memchr(part[i], 0, len[i]);

		if (!nul)
			break;
		part[i + 1] = nul + 1;
		len[i + 1] = len[i] - (size_t)(nul + 1 - part[i]);
		len[i] = (size_t)(nul - part[i]);
	}
	put(".git/HEAD", part[0], len[0]);
	put(".git/packed-refs", part[1] ? part[1] : data, len[1]);
	put(".git/refs/heads/main", part[2] ? part[2] : data, len[2]);
	g = (struct gitdir){
		.top = dir, .dir = xasprintf("%s/.git", dir),
		.common = xasprintf("%s/.git", dir), .safe = 1,
	};
	if (gitdir_head(&g, &commit, &branch, &e)) {
		if (!strstr(e.msg, dir) || commit || branch)
			abort();
	} else {
		if (commit && !is_oid(commit))
			abort();
		if (branch) {
			ref = xasprintf("refs/heads/%s", branch);
			if (!branch[0] || !gitdir_ref_valid(ref))
				abort();
			free(ref);
		}
		free(commit);
		free(branch);
	}
	free(g.dir);
	free(g.common);
	return 0;
}

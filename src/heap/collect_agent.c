/*
 * The heap agent: where it is (beside the binary, or installed), and
 * whether a program can take it preloaded (a script's interpreter, an
 * ELF that is static or of another machine cannot).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heap/collect_internal.h"
#include "heap/elfalloc.h"
#include "util/fileio.h"


char *heap_find_agent(struct error *e)
{
	return find_helper(HEAP_AGENT_NAME, "YARDSTICK_HEAP_AGENT", R_OK, e);
}

/* The interpreter of a #! script, into buf, or false. */
static bool script_interpreter(const char *head, size_t n, char *buf,
			       size_t len)
{
	size_t i = 2, j = 0;

	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < n && j + 1 < len && head[i] != ' ' && head[i] != '\t' &&
	       head[i] != '\n')
		buf[j++] = head[i++];
	buf[j] = '\0';
	return j > 0;
}

/* What fd's ELF image says of its allocator (nothing if it cannot be
 * mapped). */
static void elf_allocator(int fd, struct elf_alloc *f)
{
	struct stat st;
	void *img;

	memset(f, 0, sizeof(*f));
	if (fstat(fd, &st) || st.st_size <= 0)
		return;
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED)
		return;
	elf_alloc_scan(img, (size_t)st.st_size, f);
	munmap(img, (size_t)st.st_size);
}

static const char *elf_unpreloadable(int fd, const unsigned char *head,
				     size_t n, bool *defines_malloc)
{
	static char why[256];
	struct elf_alloc f;

	Elf64_Ehdr eh;

	if (n < sizeof(eh))
		return NULL;
	memcpy(&eh, head, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return "it is a 32-bit program and the agent is 64-bit";
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
			  (uint64_t)i * eh.e_phentsize)) != sizeof(ph))
			return NULL;
		if (ph.p_type != PT_INTERP)
			continue;
		elf_allocator(fd, &f);
		*defines_malloc = f.defines_malloc;
		if (!f.sanitizer)
			return NULL;
		snprintf(why, sizeof(why), "it is built with %s, whose "
			 "runtime replaces malloc and must be loaded first "
			 "(the program aborts with the agent before it): "
			 "build it without the sanitizer", f.sanitizer);
		return why;
	}
	return "it is statically linked: there is no dynamic loader to "
	       "preload the agent with";
}

/*
 * The ELF image path runs (a #! script's interpreter, up to 4 deep), open
 * (-1: none, or path is set-user/group-ID: *why says so); head holds its
 * first *n bytes.
 */
static int program_image(const char *path, unsigned char *head, size_t *n,
			 const char **why)
{
	char interp[PATH_MAX];
	struct stat st;
	ssize_t got;
	int fd;

	*why = NULL;
	for (int depth = 0; depth < 4; depth++) {
		if (stat(path, &st))
			return -1;
		if (st.st_mode & (S_ISUID | S_ISGID)) {
			*why = "it is set-user-ID or set-group-ID: the dynamic "
			       "loader ignores LD_PRELOAD for it";
			return -1;
		}
		fd = file_open_regular(path);
		if (fd < 0)
			return -1;
		got = pread(fd, head, *n, 0);
		if (got >= 4 && !memcmp(head, ELFMAG, SELFMAG)) {
			*n = (size_t)got;
			return fd;
		}
		close(fd);
		if (got <= 0 || !script_interpreter((char *)head, (size_t)got,
						    interp, sizeof(interp)))
			return -1;
		path = interp;	/* used before the next one is read */
	}
	return -1;
}

const char *heap_unpreloadable(const char *path, bool *defines_malloc)
{
	unsigned char head[256];
	size_t n = sizeof(head);
	const char *why;
	int fd;

	*defines_malloc = false;
	fd = program_image(path, head, &n, &why);
	if (fd < 0)
		return why;
	why = elf_unpreloadable(fd, head, n, defines_malloc);
	close(fd);
	return why;
}

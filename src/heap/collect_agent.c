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
#include <sys/stat.h>
#include <unistd.h>

#include "heap/collect_internal.h"
#include "util/fileio.h"

#define AGENT_NAME "libyardstick-heap.so"

char *heap_find_agent(struct error *e)
{
	return find_helper(AGENT_NAME, "YARDSTICK_HEAP_AGENT", R_OK, e);
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

static const char *elf_unpreloadable(int fd, const unsigned char *head,
				     size_t n)
{
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
		if (ph.p_type == PT_INTERP)
			return NULL;
	}
	return "it is statically linked: there is no dynamic loader to "
	       "preload the agent with";
}

const char *heap_unpreloadable(const char *path)
{
	unsigned char head[256];
	char interp[PATH_MAX];
	const char *why = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	for (int depth = 0; depth < 4; depth++) {
		if (stat(path, &st))
			return NULL;
		if (st.st_mode & (S_ISUID | S_ISGID))
			return "it is set-user-ID or set-group-ID: the dynamic "
			       "loader ignores LD_PRELOAD for it";
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		n = pread(fd, head, sizeof(head), 0);
		if (n >= 4 && !memcmp(head, ELFMAG, SELFMAG)) {
			why = elf_unpreloadable(fd, head, (size_t)n);
			close(fd);
			return why;
		}
		close(fd);
		if (n <= 0 || !script_interpreter((char *)head, (size_t)n,
						  interp, sizeof(interp)))
			return NULL;
		path = interp;
	}
	return NULL;
}

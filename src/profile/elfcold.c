/*
 * The cold part of a function, from its image (elfcold.h).
 */
#include "profile/elfcold.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/strutil.h"

/* The most bytes of a function scanned (CPython's evaluation function is
 * about 60 KB) and of the unwind table read (8 bytes an entry). */
#define MAX_CODE (16u << 20)
#define MAX_TABLE (64u << 20)

/* Where the bytes come from: len bytes at offset off into buf, 0 or -1
 * (a short read is -1). */
struct source {
	int (*read)(const struct source *s, uint64_t off, void *buf,
		    size_t len);
	const unsigned char *img;	/* in memory: img[0..n) */
	size_t n;
	int fd;				/* a file */
	uint64_t size;			/* its bytes: nothing longer is
					 * allocated for a read */
};

static int mem_read(const struct source *s, uint64_t off, void *buf,
		    size_t len)
{
	if (off > s->n || len > s->n - off)
		return -1;
	memcpy(buf, s->img + off, len);
	return 0;
}

static int file_read(const struct source *s, uint64_t off, void *buf,
		     size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t r = pread(s->fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

/* What the scan needs of the image: the function's bytes and the
 * sorted table of unwind entries' starts (.eh_frame_hdr's). */
struct image {
	unsigned char *code;
	uint64_t *starts;	/* file addresses, as the table has them */
	uint64_t count;
};

/* The function's bytes: from the first PT_LOAD segment whose file bytes
 * hold [start, start + size); the table: from the first PT_GNU_EH_FRAME
 * of at least its fixed part. 0, or -1. */
static int read_image(const struct source *s, uint64_t start, uint64_t size,
		      struct image *im)
{
	bool have_code = false, have_table = false;
	Elf64_Ehdr eh;

	memset(im, 0, sizeof(*im));
	if (s->read(s, 0, &eh, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64 ||	/* the jumps are x86-64's */
	    eh.e_phentsize != sizeof(Elf64_Phdr) || size < 6 ||
	    size > MAX_CODE || size > s->size)
		return -1;
	for (size_t i = 0; i < eh.e_phnum && !(have_code && have_table); i++) {
		Elf64_Phdr ph;

		if (s->read(s, eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
			break;
		if (ph.p_type == PT_LOAD && !have_code &&
		    start >= ph.p_vaddr && start - ph.p_vaddr <= ph.p_filesz &&
		    size <= ph.p_filesz - (start - ph.p_vaddr) &&
		    ph.p_offset + (start - ph.p_vaddr) >= ph.p_offset) {
			im->code = xmalloc(size);
			if (s->read(s, ph.p_offset + (start - ph.p_vaddr),
				    im->code, size))
				break;
			have_code = true;
		} else if (ph.p_type == PT_GNU_EH_FRAME && !have_table &&
			   ph.p_filesz >= 12) {
			unsigned char h[12];
			uint32_t c;
			int32_t *t;

			/* version 1, the pointer sdata4, the count udata4,
			 * the table datarel sdata4 (every linker's) */
			if (s->read(s, ph.p_offset, h, sizeof(h)) ||
			    h[0] != 1 || (h[1] & 0x0f) != 0x0b ||
			    (h[2] & 0x0f) != 0x03 || h[3] != 0x3b)
				break;
			memcpy(&c, h + 8, sizeof(c));
			if (c > (ph.p_filesz - 12) / 8 ||
			    (uint64_t)c * 8 > MAX_TABLE ||
			    (uint64_t)c * 8 + 12 > s->size)
				break;
			t = xmalloc(c ? (size_t)c * 8 : 1);
			im->starts = xmalloc((c ? c : 1) * sizeof(uint64_t));
			if (s->read(s, ph.p_offset + 12, t, (size_t)c * 8)) {
				free(t);
				break;
			}
			for (uint32_t k = 0; k < c; k++)
				im->starts[k] = ph.p_vaddr +
						(uint64_t)(int64_t)t[2 * k];
			free(t);
			im->count = c;
			have_table = true;
		}
	}
	return have_code && have_table ? 0 : -1;
}

/* The entry whose function holds address a: its index, or count when
 * none does (before the first; at or after the last, whose end the
 * table does not say). */
static uint64_t entry_of(const struct image *im, uint64_t a)
{
	uint64_t lo = 0, hi = im->count;

	while (lo < hi) {	/* the first entry starting above a */
		uint64_t mid = lo + (hi - lo) / 2;

		if (im->starts[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 || lo == im->count ? im->count : lo - 1;
}

static int scan(const struct source *s, uint64_t start, uint64_t size,
		uint64_t *lo, uint64_t *hi)
{
	uint64_t best = 0, best_hits = 0, total = 0, *hits;
	struct image im;
	int ret = -1;

	if (read_image(s, start, size, &im) || im.count < 2)
		goto out;
	hits = xcalloc(im.count, sizeof(*hits));
	for (uint64_t i = 0; i + 6 <= size; i++) {
		const unsigned char *p = im.code + i;
		uint64_t t, k;
		int32_t rel;

		if (p[0] != 0x0f || (p[1] & 0xf0) != 0x80)
			continue;
		memcpy(&rel, p + 2, sizeof(rel));
		t = start + i + 6 + (uint64_t)(int64_t)rel;
		if (t - start < size)
			continue;	/* within the function */
		total++;
		k = entry_of(&im, t);
		if (k < im.count && ++hits[k] > best_hits) {
			best_hits = hits[k];
			best = k;
		}
	}
	free(hits);
	if (best_hits < ELF_COLD_MIN_JUMPS || 2 * best_hits <= total)
		goto out;
	*lo = im.starts[best];
	*hi = im.starts[best + 1];
	/* an unsorted table's, or the function's own entry: no cold part */
	ret = *hi > *lo && !(*lo <= start && start < *hi) ? 0 : -1;
out:
	free(im.code);
	free(im.starts);
	return ret;
}

int elf_cold_scan(const unsigned char *img, size_t n, uint64_t start,
		  uint64_t size, uint64_t *lo, uint64_t *hi)
{
	struct source s = { .read = mem_read, .img = img, .n = n, .fd = -1,
			    .size = n };

	return scan(&s, start, size, lo, hi);
}

int elf_cold_file(const char *path, uint64_t start, uint64_t size,
		  uint64_t *lo, uint64_t *hi)
{
	struct source s = { .read = file_read,
			    .fd = file_open_regular(path) };
	struct stat st;
	int ret;

	if (s.fd < 0)
		return -1;
	if (fstat(s.fd, &st) || st.st_size <= 0) {
		close(s.fd);
		return -1;
	}
	s.size = (uint64_t)st.st_size;
	ret = scan(&s, start, size, lo, hi);
	close(s.fd);
	return ret;
}

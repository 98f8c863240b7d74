/*
 * A program's allocator from its ELF image: elfalloc.h.
 */
#include "heap/elfalloc.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The runtimes that replace malloc, by the needed library's name or the
 * symbol a static one defines. */
static const struct {
	const char *lib, *sym, *name;
} sanitizers[] = {
	{ "libasan.so", "__asan_init", "AddressSanitizer" },
	{ "libhwasan.so", "__hwasan_init", "HWAddressSanitizer" },
	{ "libtsan.so", "__tsan_init", "ThreadSanitizer" },
	{ "libmsan.so", "__msan_init", "MemorySanitizer" },
	{ "liblsan.so", "__lsan_init", "LeakSanitizer" },
};

/* Section i's header, or NULL if it is not inside the image. */
static const Elf64_Shdr *section(const unsigned char *img, size_t n,
				 const Elf64_Ehdr *eh, size_t i,
				 Elf64_Shdr *out)
{
	uint64_t at = eh->e_shoff + (uint64_t)i * eh->e_shentsize;

	if (i >= eh->e_shnum || eh->e_shentsize < sizeof(*out) ||
	    eh->e_shoff > n || at > n || n - at < sizeof(*out))
		return NULL;
	memcpy(out, img + at, sizeof(*out));
	return out;
}

/* The bytes of section s inside the image (else NULL), and its size. */
static const unsigned char *section_bytes(const unsigned char *img, size_t n,
					  const Elf64_Shdr *s, size_t *len)
{
	if (s->sh_type == SHT_NOBITS || s->sh_offset > n ||
	    s->sh_size > n - s->sh_offset)
		return NULL;
	*len = (size_t)s->sh_size;
	return img + s->sh_offset;
}

/* The NUL-terminated string at off of strtab (len bytes), or NULL. */
static const char *str_at(const unsigned char *strtab, size_t len,
			  uint64_t off)
{
	if (off >= len || !memchr(strtab + off, '\0', len - off))
		return NULL;
	return (const char *)strtab + off;
}

static bool is_malloc(const char *name)
{
	return !strcmp(name, "malloc") || !strcmp(name, "free") ||
	       !strcmp(name, "calloc") || !strcmp(name, "realloc");
}

/* Section sec's bytes and those of the strings it links to; false if
 * either is not inside the image. */
static bool with_strings(const unsigned char *img, size_t n,
			 const Elf64_Ehdr *eh, const Elf64_Shdr *sec,
			 const unsigned char **tab, size_t *tlen,
			 const unsigned char **str, size_t *slen)
{
	Elf64_Shdr strs;

	return section(img, n, eh, sec->sh_link, &strs) &&
	       (*tab = section_bytes(img, n, sec, tlen)) &&
	       (*str = section_bytes(img, n, &strs, slen));
}

/* The dynamic symbols of section sym (linked to its strings). */
static void scan_symbols(const unsigned char *img, size_t n,
			 const Elf64_Ehdr *eh, const Elf64_Shdr *sym,
			 struct elf_alloc *f)
{
	const unsigned char *tab, *str;
	size_t tlen, slen;

	if (!with_strings(img, n, eh, sym, &tab, &tlen, &str, &slen))
		return;
	for (size_t at = 0; at <= tlen && tlen - at >= sizeof(Elf64_Sym);
	     at += sizeof(Elf64_Sym)) {
		Elf64_Sym s;
		const char *name;

		memcpy(&s, tab + at, sizeof(s));
		if (s.st_shndx == SHN_UNDEF ||
		    !(name = str_at(str, slen, s.st_name)))
			continue;
		if (ELF64_ST_TYPE(s.st_info) == STT_FUNC && is_malloc(name))
			f->defines_malloc = true;
		for (size_t k = 0; k < sizeof(sanitizers) / sizeof(*sanitizers);
		     k++)
			if (!strcmp(name, sanitizers[k].sym))
				f->sanitizer = sanitizers[k].name;
	}
}

/* The needed libraries of section dyn (linked to its strings). */
static void scan_needed(const unsigned char *img, size_t n,
			const Elf64_Ehdr *eh, const Elf64_Shdr *dyn,
			struct elf_alloc *f)
{
	const unsigned char *tab, *str;
	size_t tlen, slen;

	if (!with_strings(img, n, eh, dyn, &tab, &tlen, &str, &slen))
		return;
	for (size_t at = 0; at <= tlen && tlen - at >= sizeof(Elf64_Dyn);
	     at += sizeof(Elf64_Dyn)) {
		Elf64_Dyn d;
		const char *name;

		memcpy(&d, tab + at, sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED ||
		    !(name = str_at(str, slen, d.d_un.d_val)))
			continue;
		for (size_t k = 0; k < sizeof(sanitizers) / sizeof(*sanitizers);
		     k++)
			if (!strncmp(name, sanitizers[k].lib,
				     strlen(sanitizers[k].lib)))
				f->sanitizer = sanitizers[k].name;
	}
}

void elf_alloc_scan(const unsigned char *img, size_t n, struct elf_alloc *f)
{
	Elf64_Ehdr eh;

	memset(f, 0, sizeof(*f));
	if (n < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG) ||
	    img[EI_CLASS] != ELFCLASS64)
		return;
	memcpy(&eh, img, sizeof(eh));
	for (size_t i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr s;

		if (!section(img, n, &eh, i, &s))
			break;
		if (s.sh_type == SHT_DYNSYM)
			scan_symbols(img, n, &eh, &s, f);
		else if (s.sh_type == SHT_DYNAMIC)
			scan_needed(img, n, &eh, &s, f);
	}
}

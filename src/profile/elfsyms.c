/*
 * What a module's symbol table does not say (symtab_internal.h, note 6):
 * the names of its PLT stubs, and where a symbol without a size ends.
 *
 * A PLT stub has no symbol: perf names it SYM@plt after the relocation of
 * the GOT slot it jumps through, and so do we. On x86-64 every stub that
 * calls out (in .plt without IBT, .plt.sec with it, .plt.got for the
 * functions whose address is also taken) is an indirect jump through its
 * slot, `jmp *disp32(%rip)` (ff 25), at most 5 bytes into the stub (after
 * an endbr64 and a bnd prefix); the slot's R_X86_64_JUMP_SLOT or
 * GLOB_DAT relocation names the function. Decoding the jump, rather than
 * counting stubs in the order of .rela.plt, holds for every layout the
 * linkers emit. With IBT, the first call of a function goes from its
 * .plt.sec stub through a lazy entry in .plt, `push INDEX` then a jump
 * to PLT0: named by .rela.plt's entry INDEX's slot. On other machines no
 * stub is named.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "profile/dwlib.h"
#include "profile/symtab_internal.h"
#include "util/strutil.h"

/* A relocated GOT slot and the name of the symbol it holds. */
struct slot {
	uint64_t start;			/* the slot's address */
	const char *name;		/* in the ELF's string table */
};

/* Section sec's header; false when it has none. */
static bool shdr_of(Elf_Scn *sec, GElf_Shdr *sh)
{
	return dw.gelf_getshdr(sec, sh) != NULL;
}

/* The name of symbol i of the symbol table section symsec. */
static const char *sym_name(Elf *elf, Elf_Scn *symsec, size_t i)
{
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	if (!shdr_of(symsec, &sh) || !(d = dw.elf_getdata(symsec, NULL)) ||
	    !dw.gelf_getsym(d, (int)i, &sym) || !sym.st_name)
		return NULL;
	return dw.elf_strptr(elf, sh.sh_link, sym.st_name);
}

/* Append the named JUMP_SLOT and GLOB_DAT slots of relocation section sec
 * to *v. */
static void add_slots(Elf *elf, Elf_Scn *sec, const GElf_Shdr *sh,
		      struct slot **v, size_t *n, size_t *cap)
{
	Elf_Data *d = dw.elf_getdata(sec, NULL);
	Elf_Scn *symsec = dw.elf_getscn(elf, sh->sh_link);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && symsec && i < count; i++) {
		GElf_Rela r;
		const char *name;
		uint64_t type;

		if (!dw.gelf_getrela(d, (int)i, &r))
			break;
		type = GELF_R_TYPE(r.r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    !GELF_R_SYM(r.r_info))
			continue;
		name = sym_name(elf, symsec, GELF_R_SYM(r.r_info));
		if (!name || !*name)
			continue;
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct slot){ r.r_offset, name };
	}
}

/* The name of the slot at addr, or NULL. */
static const char *slot_name(const struct slot *v, size_t n, uint64_t addr)
{
	size_t k = st_count_at_or_below(v, n, sizeof(*v), addr);

	return k && v[k - 1].start == addr ? v[k - 1].name : NULL;
}

/* The slots of .rela.plt in its order: a lazy entry's push names one
 * by its index there. */
struct lazy {
	uint64_t *at;
	size_t n;
};

/* The GOT slot stub bytes p[0..len) at address at jump through, or 0;
 * else, a lazy entry of an IBT .plt (endbr64; push INDEX; jmp PLT0,
 * which the first call of the function's .plt.sec stub goes through),
 * the slot of .rela.plt's entry INDEX. */
static uint64_t stub_slot(const unsigned char *p, size_t len, uint64_t at,
			  const struct lazy *lz)
{
	for (size_t i = 0; i <= 5 && i + 6 <= len; i++) {
		int32_t disp;

		if (p[i] != 0xff || p[i + 1] != 0x25)
			continue;
		memcpy(&disp, p + i + 2, sizeof(disp));	/* little-endian */
		return at + i + 6 + (uint64_t)(int64_t)disp;
	}
	for (size_t i = 0; i <= 5 && i + 5 <= len; i++) {
		uint32_t idx;

		if (p[i] != 0x68)
			continue;
		memcpy(&idx, p + i + 1, sizeof(idx));
		return idx < lz->n ? lz->at[idx] : 0;
	}
	return 0;
}

/* Name the stubs of PLT section sec (header sh) from the slots. */
static void add_stubs(struct symtab *s, Elf_Scn *sec, const GElf_Shdr *sh,
		      uint64_t bias, const struct slot *slots, size_t nslots,
		      const struct lazy *lz, struct sym **out, size_t *n,
		      size_t *cap)
{
	Elf_Data *d = dw.elf_getdata(sec, NULL);
	size_t step = sh->sh_entsize >= 8 ? sh->sh_entsize : 16;

	if (!d || !d->d_buf || d->d_size < sh->sh_size)
		return;
	for (size_t off = 0; off + step <= sh->sh_size; off += step) {
		uint64_t at = sh->sh_addr + off;
		const char *name = slot_name(slots, nslots,
			stub_slot((const unsigned char *)d->d_buf + off, step,
				  at, lz));
		char *full;

		if (!name)
			continue;
		full = xasprintf("%s@plt", st_intern_symbol(s, name));
		*out = xgrow(*out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = (struct sym){
			.start = at + bias, .size = step,
			.name = st_intern(s, full), .rank = 0, .final = true,
		};
		free(full);
	}
}

/* .rela.plt's slots in its order (the lazy entries' indices). */
static void lazy_slots(Elf_Scn *sec, const GElf_Shdr *sh, struct lazy *lz)
{
	Elf_Data *d = dw.elf_getdata(sec, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	if (!d || !count || count > d->d_size / sizeof(Elf64_Rela))
		return;
	lz->at = xmalloc(count * sizeof(*lz->at));
	for (size_t i = 0; i < count; i++) {
		GElf_Rela r;

		if (!dw.gelf_getrela(d, (int)i, &r))
			break;
		lz->at[lz->n++] = r.r_offset;
	}
}

static bool is_plt(const char *name)
{
	return name && (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") ||
			!strcmp(name, ".plt.got"));
}

size_t elfsyms_plt(struct symtab *s, Elf *elf, uint64_t bias,
		   struct sym **out)
{
	GElf_Ehdr eh;
	size_t shstr, n = 0, cap = 0, nslots = 0, capslots = 0;
	struct slot *slots = NULL;
	struct lazy lz = { 0 };
	Elf_Scn *sec = NULL;
	GElf_Shdr sh;

	*out = NULL;
	if (!dw.gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    dw.elf_getshdrstrndx(elf, &shstr))
		return 0;
	while ((sec = dw.elf_nextscn(elf, sec)))
		if (shdr_of(sec, &sh) && sh.sh_type == SHT_RELA) {
			const char *name = dw.elf_strptr(elf, shstr,
							 sh.sh_name);

			if (name && !strcmp(name, ".rela.plt") && !lz.at)
				lazy_slots(sec, &sh, &lz);
			add_slots(elf, sec, &sh, &slots, &nslots, &capslots);
		}
	if (nslots) {
		qsort(slots, nslots, sizeof(*slots), st_start_cmp);
		while ((sec = dw.elf_nextscn(elf, sec)))
			if (shdr_of(sec, &sh) && sh.sh_type == SHT_PROGBITS &&
			    is_plt(dw.elf_strptr(elf, shstr, sh.sh_name)))
				add_stubs(s, sec, &sh, bias, slots, nslots,
					  &lz, out, &n, &cap);
	}
	free(slots);
	free(lz.at);
	return n;
}

/* The end of the executable section holding a (a Dwfl address), or 0. */
static uint64_t section_end(Elf *elf, uint64_t bias, uint64_t a)
{
	Elf_Scn *sec = NULL;
	GElf_Shdr sh;

	while ((sec = dw.elf_nextscn(elf, sec)))
		if (shdr_of(sec, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type != SHT_NOBITS && a >= sh.sh_addr + bias &&
		    a - (sh.sh_addr + bias) < sh.sh_size)
			return sh.sh_addr + bias + sh.sh_size;
	return 0;
}

void elfsyms_bound(Elf *elf, uint64_t bias, struct sym *syms, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t end;

		if (syms[i].size)
			continue;
		end = section_end(elf, bias, syms[i].start);
		if (i + 1 < n && (!end || syms[i + 1].start < end))
			end = syms[i + 1].start;
		/* no section holds it (no section headers) and it is the
		 * last: it reaches up to the end, as it did before */
		if (!end)
			end = UINT64_MAX;
		syms[i].size = end > syms[i].start ? end - syms[i].start : 1;
	}
}

/* The size of a value of DWARF pointer encoding enc (its low nibble), or
 * 0 for one the header table never uses. */
static size_t enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case 0x02: case 0x0a: return 2;	/* udata2, sdata2 */
	case 0x03: case 0x0b: return 4;	/* udata4, sdata4 */
	case 0x04: case 0x0c: return 8;	/* udata8, sdata8 */
	default: return 0;
	}
}

/*
 * .eh_frame_hdr: version 1, the encodings of the pointer to .eh_frame,
 * of the count and of the table, the pointer, the count, then the table:
 * (initial location, FDE address) pairs sorted by location. Every linker
 * writes the table as datarel sdata4 (0x3b), relative to the header;
 * another encoding gives no table.
 */
const void *elfsyms_section(Elf *elf, const char *name, size_t *len,
			    uint64_t *addr)
{
	size_t shstr;
	Elf_Scn *sec = NULL;
	GElf_Shdr sh;

	*len = 0;
	if (dw.elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((sec = dw.elf_nextscn(elf, sec))) {
		const char *sname;
		Elf_Data *d;

		if (!shdr_of(sec, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sname = dw.elf_strptr(elf, shstr, sh.sh_name)) ||
		    strcmp(sname, name))
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			return NULL;
		/* libelf checks the section against the file's size: a
		 * truncated file gives none */
		d = dw.elf_getdata(sec, NULL);
		if (!d || !d->d_buf || !d->d_size)
			return NULL;
		*len = d->d_size;
		if (addr)
			*addr = sh.sh_addr;
		return d->d_buf;
	}
	return NULL;
}

size_t elfsyms_fde_starts(Elf *elf, uint64_t bias, uint64_t **out)
{
	size_t n = 0, off, len;
	uint64_t count = 0, addr = 0;
	const unsigned char *p = elfsyms_section(elf, ".eh_frame_hdr", &len,
						 &addr);

	*out = NULL;
	if (len < 4)
		p = NULL;
	if (!p || p[0] != 1 || p[3] != 0x3b || !enc_size(p[1]) ||
	    !enc_size(p[2]) || 4 + enc_size(p[1]) + enc_size(p[2]) > len)
		return 0;
	off = 4 + enc_size(p[1]);
	for (size_t i = 0; i < enc_size(p[2]); i++)	/* little-endian */
		count |= (uint64_t)p[off + i] << (8 * i);
	off += enc_size(p[2]);
	if (count > (len - off) / 8)
		return 0;
	*out = xcalloc(count + 1, sizeof(**out));
	for (uint64_t i = 0; i < count; i++) {
		int32_t loc;

		memcpy(&loc, p + off + 8 * i, sizeof(loc));
		(*out)[n++] = addr + (uint64_t)(int64_t)loc + bias;
	}
	return n;
}

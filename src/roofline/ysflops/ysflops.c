/*
 * ysflops: a valgrind tool that counts a program's floating-point
 * operations and the bytes it loads and stores, for `yardstick roofline
 * --count` (src/cmd/roofline_count.c runs it, reads what it writes).
 *
 * It is a static executable built against Debian's valgrind (the core,
 * libcoregrind, and VEX are linked in: meson.build), found by valgrind's
 * launcher as $VALGRIND_LIB/ysflops-amd64-linux. Nothing of yardstick is
 * linked in, and it uses valgrind's own C library only (pub_tool_*.h).
 *
 * Each superblock of VEX IR is walked once, when it is translated; what
 * it does is known statically there, so the counts of a stretch of code
 * (from the superblock's start or a side exit to the next side exit or
 * its end) are summed at translation and added to the totals once per
 * execution of the stretch, with inline IR (a load, an add and a store
 * per nonzero total), never a helper call per operation. Guarded memory
 * accesses (LoadG, StoreG, dirty helpers with a guard) add their size
 * when their guard holds.
 *
 * The counting policy (docs: yardstick roofline --help):
 * - add, subtract, multiply: 1 FLOP per lane; divide and square root: 1
 *   FLOP per lane too (and counted apart, in div_sqrt); a fused
 *   multiply-add or multiply-subtract: 2 FLOPs per lane (and counted
 *   apart, in fma);
 * - not counted: comparisons, min and max, conversions, negation and
 *   absolute value, reciprocal estimates, x87 transcendental helpers,
 *   moves and shuffles, integer arithmetic;
 * - lanes: a packed op counts every lane (Iop_Add64Fx4: 4 FP64 FLOPs of
 *   the 256-bit class); addsubpd, which VEX makes a packed add and a
 *   packed subtract blended, counts one of them; what else VEX does
 *   with more lane ops than the instruction's own is counted as VEX
 *   does it: dpps (4 multiplies, 3 adds) counts 12 (a packed multiply
 *   and two packed adds); dppd counts its 3; an SSE scalar op on lane 0 of a register
 *   (Iop_Add64F0x2) counts 1 (scalar class). VEX 3.19 splits a packed FMA
 *   (vfmadd231pd ymm) into one Iop_MAddF64 per lane: scalar-typed ops
 *   are grouped by guest instruction, and N lanes of them in one
 *   instruction make it an N-lane op (4 × FP64: the 256-bit class);
 * - bytes: every load (Iex_Load, LoadG, the read side of a dirty helper,
 *   CAS, LL) and store (Ist_Store, StoreG, the write side of a dirty
 *   helper, CAS, SC) by its size, the stack and spills included;
 * - instructions: guest instructions executed.
 *
 * With --ys-out=PREFIX, each process (a fork of the program too: it runs
 * under the tool as well, counting from zero) writes its totals at its
 * exit to PREFIX.PID.N (N: 0, or the first free should the pid come
 * again), as "key value" lines ending with "end 1". A process killed by a
 * fatal signal still writes them (valgrind calls the tool's fini before
 * it dies): the totals up to then. The work of a process that execs is
 * counted from its exec on (what it did before is lost with its image:
 * little, in a shell or a wrapper).
 */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"

/* The totals. The FLOP classes are precision × width, in this order. */
enum {
	P_F64, P_F32, P_F16, NPREC
};
enum {
	W_SCALAR, W_128, W_256, W_512, NWIDTH
};
enum {
	C_FLOPS = 0,				/* [prec][width] */
	C_FMA = C_FLOPS + NPREC * NWIDTH,	/* [prec]: lanes of FMA */
	C_DIVSQRT = C_FMA + NPREC,		/* [prec]: lanes of div/sqrt */
	C_LOADED = C_DIVSQRT + NPREC,
	C_STORED,
	C_INSNS,
	NCOUNT
};

static ULong totals[NCOUNT];

static const HChar *const prec_name[NPREC] = { "fp64", "fp32", "fp16" };
static const HChar *const width_name[NWIDTH] = {
	"scalar", "128", "256", "512"
};
static const UInt prec_bits[NPREC] = { 64, 32, 16 };

static const HChar *clo_out;
static Bool clo_trace;

/* What an IROp does, for counting. */
enum kind { K_NONE, K_ARITH, K_DIVSQRT, K_FMA };

struct fpop {
	enum kind kind;
	Int prec;
	UInt lanes;
	/* the width class of a vector op; -1: a scalar-typed op, classed by
	 * the number of its lanes in one guest instruction */
	Int width;
	/* a packed add (1) or subtract (2): VEX makes addsubpd a whole
	 * packed add and a whole packed subtract, blended (see add_op) */
	Int addsub;
};

static struct fpop classify(IROp op)
{
	struct fpop f = { K_NONE, 0, 0, -1, 0 };

#define OP(o, k, p, l, w) case o: f.kind = k; f.prec = p; f.lanes = l; \
	f.width = w; break
	switch (op) {
	case Iop_Add32Fx4: case Iop_Add64Fx2: case Iop_Add32Fx8:
	case Iop_Add64Fx4: case Iop_Add16Fx8:
		f.addsub = 1;
		break;
	case Iop_Sub32Fx4: case Iop_Sub64Fx2: case Iop_Sub32Fx8:
	case Iop_Sub64Fx4: case Iop_Sub16Fx8:
		f.addsub = 2;
		break;
	default:
		break;
	}
	switch (op) {
	/* scalar-typed, grouped by instruction */
	OP(Iop_AddF64, K_ARITH, P_F64, 1, -1);
	OP(Iop_SubF64, K_ARITH, P_F64, 1, -1);
	OP(Iop_MulF64, K_ARITH, P_F64, 1, -1);
	OP(Iop_DivF64, K_DIVSQRT, P_F64, 1, -1);
	OP(Iop_SqrtF64, K_DIVSQRT, P_F64, 1, -1);
	OP(Iop_AddF64r32, K_ARITH, P_F64, 1, -1);
	OP(Iop_SubF64r32, K_ARITH, P_F64, 1, -1);
	OP(Iop_MulF64r32, K_ARITH, P_F64, 1, -1);
	OP(Iop_DivF64r32, K_DIVSQRT, P_F64, 1, -1);
	OP(Iop_MAddF64, K_FMA, P_F64, 1, -1);
	OP(Iop_MSubF64, K_FMA, P_F64, 1, -1);
	OP(Iop_MAddF64r32, K_FMA, P_F64, 1, -1);
	OP(Iop_MSubF64r32, K_FMA, P_F64, 1, -1);
	OP(Iop_AddF32, K_ARITH, P_F32, 1, -1);
	OP(Iop_SubF32, K_ARITH, P_F32, 1, -1);
	OP(Iop_MulF32, K_ARITH, P_F32, 1, -1);
	OP(Iop_DivF32, K_DIVSQRT, P_F32, 1, -1);
	OP(Iop_SqrtF32, K_DIVSQRT, P_F32, 1, -1);
	OP(Iop_MAddF32, K_FMA, P_F32, 1, -1);
	OP(Iop_MSubF32, K_FMA, P_F32, 1, -1);
	OP(Iop_AddF16, K_ARITH, P_F16, 1, -1);
	OP(Iop_SubF16, K_ARITH, P_F16, 1, -1);
	OP(Iop_SqrtF16, K_DIVSQRT, P_F16, 1, -1);
	/* SSE scalar: lane 0 of a register */
	OP(Iop_Add64F0x2, K_ARITH, P_F64, 1, W_SCALAR);
	OP(Iop_Sub64F0x2, K_ARITH, P_F64, 1, W_SCALAR);
	OP(Iop_Mul64F0x2, K_ARITH, P_F64, 1, W_SCALAR);
	OP(Iop_Div64F0x2, K_DIVSQRT, P_F64, 1, W_SCALAR);
	OP(Iop_Sqrt64F0x2, K_DIVSQRT, P_F64, 1, W_SCALAR);
	OP(Iop_Add32F0x4, K_ARITH, P_F32, 1, W_SCALAR);
	OP(Iop_Sub32F0x4, K_ARITH, P_F32, 1, W_SCALAR);
	OP(Iop_Mul32F0x4, K_ARITH, P_F32, 1, W_SCALAR);
	OP(Iop_Div32F0x4, K_DIVSQRT, P_F32, 1, W_SCALAR);
	OP(Iop_Sqrt32F0x4, K_DIVSQRT, P_F32, 1, W_SCALAR);
	/* packed, 64 and 128 bits */
	OP(Iop_Add32Fx2, K_ARITH, P_F32, 2, W_128);
	OP(Iop_Sub32Fx2, K_ARITH, P_F32, 2, W_128);
	OP(Iop_Mul32Fx2, K_ARITH, P_F32, 2, W_128);
	OP(Iop_PwAdd32Fx2, K_ARITH, P_F32, 2, W_128);
	OP(Iop_Add64Fx2, K_ARITH, P_F64, 2, W_128);
	OP(Iop_Sub64Fx2, K_ARITH, P_F64, 2, W_128);
	OP(Iop_Mul64Fx2, K_ARITH, P_F64, 2, W_128);
	OP(Iop_Div64Fx2, K_DIVSQRT, P_F64, 2, W_128);
	OP(Iop_Sqrt64Fx2, K_DIVSQRT, P_F64, 2, W_128);
	OP(Iop_Add32Fx4, K_ARITH, P_F32, 4, W_128);
	OP(Iop_Sub32Fx4, K_ARITH, P_F32, 4, W_128);
	OP(Iop_Mul32Fx4, K_ARITH, P_F32, 4, W_128);
	OP(Iop_Div32Fx4, K_DIVSQRT, P_F32, 4, W_128);
	OP(Iop_Sqrt32Fx4, K_DIVSQRT, P_F32, 4, W_128);
	OP(Iop_Add16Fx8, K_ARITH, P_F16, 8, W_128);
	OP(Iop_Sub16Fx8, K_ARITH, P_F16, 8, W_128);
	OP(Iop_Sqrt16Fx8, K_DIVSQRT, P_F16, 8, W_128);
	/* packed, 256 bits */
	OP(Iop_Add64Fx4, K_ARITH, P_F64, 4, W_256);
	OP(Iop_Sub64Fx4, K_ARITH, P_F64, 4, W_256);
	OP(Iop_Mul64Fx4, K_ARITH, P_F64, 4, W_256);
	OP(Iop_Div64Fx4, K_DIVSQRT, P_F64, 4, W_256);
	OP(Iop_Sqrt64Fx4, K_DIVSQRT, P_F64, 4, W_256);
	OP(Iop_Add32Fx8, K_ARITH, P_F32, 8, W_256);
	OP(Iop_Sub32Fx8, K_ARITH, P_F32, 8, W_256);
	OP(Iop_Mul32Fx8, K_ARITH, P_F32, 8, W_256);
	OP(Iop_Div32Fx8, K_DIVSQRT, P_F32, 8, W_256);
	OP(Iop_Sqrt32Fx8, K_DIVSQRT, P_F32, 8, W_256);
	default:
		break;
	}
#undef OP
	return f;
}

/* The counts of the stretch being instrumented, and the scalar-typed ops
 * of the guest instruction being walked. */
struct acc {
	ULong n[NCOUNT];
	UInt insn_lanes[NPREC];		/* [prec] */
	UChar insn_addsub[NPREC][NWIDTH];	/* packed add 1, sub 2 seen */
	ULong insn_flops[NPREC];
	ULong insn_fma[NPREC], insn_divsqrt[NPREC];
};

static void add_op(struct acc *a, const struct fpop *f)
{
	ULong flops = (ULong)f->lanes * (f->kind == K_FMA ? 2 : 1);

	if (f->width < 0) {
		a->insn_lanes[f->prec] += f->lanes;
		a->insn_flops[f->prec] += flops;
		if (f->kind == K_FMA)
			a->insn_fma[f->prec] += f->lanes;
		if (f->kind == K_DIVSQRT)
			a->insn_divsqrt[f->prec] += f->lanes;
		return;
	}
	if (f->addsub) {
		/* One guest instruction does not both add and subtract
		 * whole registers, but VEX's addsubpd (and vaddsubps ...)
		 * does: each lane is added or subtracted, not both, so the
		 * pair counts as one op. */
		UChar *seen = &a->insn_addsub[f->prec][f->width];

		if (*seen & (3 - f->addsub)) {
			*seen = 0;
			return;
		}
		*seen |= (UChar)f->addsub;
	}
	a->n[C_FLOPS + f->prec * NWIDTH + f->width] += flops;
	if (f->kind == K_FMA)
		a->n[C_FMA + f->prec] += f->lanes;
	if (f->kind == K_DIVSQRT)
		a->n[C_DIVSQRT + f->prec] += f->lanes;
}

/* The end of a guest instruction: its scalar-typed ops, classed by how
 * many lanes of each precision it did. */
static void end_insn(struct acc *a)
{
	VG_(memset)(a->insn_addsub, 0, sizeof(a->insn_addsub));
	for (Int p = 0; p < NPREC; p++) {
		UInt bits = a->insn_lanes[p] * prec_bits[p];
		Int w;

		if (!a->insn_lanes[p])
			continue;
		w = a->insn_lanes[p] == 1 ? W_SCALAR : bits <= 128 ? W_128
			: bits <= 256 ? W_256 : W_512;
		a->n[C_FLOPS + p * NWIDTH + w] += a->insn_flops[p];
		a->n[C_FMA + p] += a->insn_fma[p];
		a->n[C_DIVSQRT + p] += a->insn_divsqrt[p];
		a->insn_lanes[p] = 0;
		a->insn_flops[p] = a->insn_fma[p] = a->insn_divsqrt[p] = 0;
	}
}

/* totals[c] += inc (an I64 atom), inline. */
static void emit_add(IRSB *sb, Int c, IRExpr *inc)
{
	IRExpr *addr = mkIRExpr_HWord((HWord)&totals[c]);
	IRTemp t1 = newIRTemp(sb->tyenv, Ity_I64);
	IRTemp t2 = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64,
						       addr)));
	addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64,
		IRExpr_RdTmp(t1), inc)));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, addr, IRExpr_RdTmp(t2)));
}

/* totals[c] += guard ? n : 0, inline, for an access under a guard. */
static void emit_guarded(IRSB *sb, Int c, IRExpr *guard, ULong n)
{
	IRTemp t;

	if (!n)
		return;
	if (guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1) {
		if (guard->Iex.Const.con->Ico.U1)
			emit_add(sb, c, IRExpr_Const(IRConst_U64(n)));
		return;
	}
	t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_ITE(guard,
		IRExpr_Const(IRConst_U64(n)), IRExpr_Const(IRConst_U64(0)))));
	emit_add(sb, c, IRExpr_RdTmp(t));
}

/* Add the stretch's counts to the totals, and start a new stretch. */
static void flush(IRSB *sb, struct acc *a)
{
	for (Int c = 0; c < NCOUNT; c++)
		if (a->n[c]) {
			emit_add(sb, c, IRExpr_Const(IRConst_U64(a->n[c])));
			a->n[c] = 0;
		}
}

static void count_expr(struct acc *a, const IRExpr *e)
{
	struct fpop f;

	switch (e->tag) {
	case Iex_Unop:
		f = classify(e->Iex.Unop.op);
		break;
	case Iex_Binop:
		f = classify(e->Iex.Binop.op);
		break;
	case Iex_Triop:
		f = classify(e->Iex.Triop.details->op);
		break;
	case Iex_Qop:
		f = classify(e->Iex.Qop.details->op);
		break;
	case Iex_Load:
		a->n[C_LOADED] += sizeofIRType(e->Iex.Load.ty);
		return;
	default:
		return;
	}
	if (f.kind == K_NONE)
		return;
	if (clo_trace) {
		VG_(printf)("ysflops: ");
		ppIRExpr(e);
		VG_(printf)(" -> %s x%u %s\n", prec_name[f.prec], f.lanes,
			    f.width < 0 ? "by-insn" : width_name[f.width]);
	}
	add_op(a, &f);
}

static UInt loadg_size(IRLoadGOp cvt)
{
	switch (cvt) {
	case ILGop_IdentV128: return 16;
	case ILGop_Ident64: return 8;
	case ILGop_Ident32: return 4;
	case ILGop_16Uto32: case ILGop_16Sto32: return 2;
	case ILGop_8Uto32: case ILGop_8Sto32: return 1;
	default: return 0;
	}
}

static IRSB *ys_instrument(VgCallbackClosure *closure, IRSB *in,
			   const VexGuestLayout *layout,
			   const VexGuestExtents *vge,
			   const VexArchInfo *archinfo_host,
			   IRType gWordTy, IRType hWordTy)
{
	IRSB *out = deepCopyIRSBExceptStmts(in);
	struct acc a;
	Int i = 0;

	VG_(memset)(&a, 0, sizeof(a));
	/* the preamble before the first IMark, as it is */
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(out, in->stmts[i++]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		IRType ty;

		switch (st->tag) {
		case Ist_IMark:
			end_insn(&a);
			a.n[C_INSNS]++;
			break;
		case Ist_WrTmp:
			count_expr(&a, st->Ist.WrTmp.data);
			break;
		case Ist_Store:
			ty = typeOfIRExpr(in->tyenv, st->Ist.Store.data);
			a.n[C_STORED] += sizeofIRType(ty);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			ty = typeOfIRExpr(in->tyenv, sg->data);
			emit_guarded(out, C_STORED, sg->guard,
				     sizeofIRType(ty));
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;

			emit_guarded(out, C_LOADED, lg->guard,
				     loadg_size(lg->cvt));
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			UInt n = sizeofIRType(typeOfIRExpr(in->tyenv,
							   cas->dataLo));

			if (cas->dataHi)
				n *= 2;
			a.n[C_LOADED] += n;
			a.n[C_STORED] += n;
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata) {
				ty = typeOfIRTemp(in->tyenv,
						  st->Ist.LLSC.result);
				a.n[C_LOADED] += sizeofIRType(ty);
			} else {
				ty = typeOfIRExpr(in->tyenv,
						  st->Ist.LLSC.storedata);
				a.n[C_STORED] += sizeofIRType(ty);
			}
			break;
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
				emit_guarded(out, C_LOADED, d->guard,
					     (ULong)d->mSize);
			if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
				emit_guarded(out, C_STORED, d->guard,
					     (ULong)d->mSize);
			break;
		}
		case Ist_Exit:
			/* what came before it ran whether or not it is taken */
			end_insn(&a);
			flush(out, &a);
			break;
		default:
			break;
		}
		addStmtToIRSB(out, st);
	}
	end_insn(&a);
	flush(out, &a);
	return out;
}

/* A forked child starts from the totals its parent had at the fork, and
 * writes its own at its exit: it counts from zero, or the parent's work
 * before the fork would be counted twice. */
static void ys_forked_child(ThreadId tid)
{
	VG_(memset)(totals, 0, sizeof(totals));
}

static void ys_post_clo_init(void)
{
	VG_(atfork)(NULL, NULL, ys_forked_child);
}

static Bool ys_process_cmd_line_option(const HChar *arg)
{
	if VG_STR_CLO(arg, "--ys-out", clo_out) {}
	else if VG_BOOL_CLO(arg, "--ys-trace", clo_trace) {}
	else
		return False;
	return True;
}

static void ys_print_usage(void)
{
	VG_(printf)(
"    --ys-out=PREFIX           write the totals to PREFIX.PID at exit\n"
"    --ys-trace=yes|no         print each FP op as it is instrumented [no]\n");
}

static void ys_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

static Int put(HChar *buf, Int len, Int size, const HChar *key, ULong v)
{
	if (len >= size)
		return len;
	return len + VG_(snprintf)(buf + len, size - len, "%s %llu\n", key, v);
}

static void ys_fini(Int exitcode)
{
	HChar buf[2048], key[64], path[4096];
	Int len = 0, fd = -1;

	len = put(buf, len, sizeof(buf), "ysflops", 1);
	len = put(buf, len, sizeof(buf), "pid", (ULong)VG_(getpid)());
	len = put(buf, len, sizeof(buf), "exit_code", (ULong)(UInt)exitcode);
	for (Int p = 0; p < NPREC; p++)
		for (Int w = 0; w < NWIDTH; w++) {
			VG_(snprintf)(key, sizeof(key), "%s_%s", prec_name[p],
				      width_name[w]);
			len = put(buf, len, sizeof(buf), key,
				  totals[C_FLOPS + p * NWIDTH + w]);
		}
	for (Int p = 0; p < NPREC; p++) {
		VG_(snprintf)(key, sizeof(key), "%s_fma", prec_name[p]);
		len = put(buf, len, sizeof(buf), key, totals[C_FMA + p]);
		VG_(snprintf)(key, sizeof(key), "%s_div_sqrt", prec_name[p]);
		len = put(buf, len, sizeof(buf), key, totals[C_DIVSQRT + p]);
	}
	len = put(buf, len, sizeof(buf), "bytes_loaded", totals[C_LOADED]);
	len = put(buf, len, sizeof(buf), "bytes_stored", totals[C_STORED]);
	len = put(buf, len, sizeof(buf), "instructions", totals[C_INSNS]);
	len = put(buf, len, sizeof(buf), "end", 1);
	if (!clo_out) {
		VG_(umsg)("%s", buf);
		return;
	}
	/* PREFIX.PID.N: the first N free, should a pid come again */
	for (Int n = 0; n < 1000; n++) {
		VG_(snprintf)(path, sizeof(path), "%s.%d.%d", clo_out,
			      VG_(getpid)(), n);
		fd = VG_(fd_open)(path, VKI_O_WRONLY | VKI_O_CREAT |
				  VKI_O_EXCL, 0600);
		if (fd >= 0)
			break;
	}
	if (fd < 0) {
		VG_(umsg)("ysflops: cannot create '%s'\n", path);
		return;
	}
	if (VG_(write)(fd, buf, len) != len)
		VG_(umsg)("ysflops: cannot write '%s'\n", path);
	VG_(close)(fd);
}

static void ys_pre_clo_init(void)
{
	VG_(details_name)("ysflops");
	VG_(details_version)(NULL);
	VG_(details_description)("yardstick's FLOP and byte counter");
	VG_(details_copyright_author)("yardstick");
	VG_(details_bug_reports_to)("yardstick");
	VG_(details_avg_translation_sizeB)(250);
	VG_(basic_tool_funcs)(ys_post_clo_init, ys_instrument, ys_fini);
	VG_(needs_command_line_options)(ys_process_cmd_line_option,
					ys_print_usage, ys_print_debug_usage);
}

VG_DETERMINE_INTERFACE_VERSION(ys_pre_clo_init)
